package io.hbkit.phoenix;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.HdrHistogram.Histogram;

/**
 * The Phoenix side of {@code make bench-phoenix}: the SMS messages that
 * {@code hbkit bench --records} wrote to a file, upserted through Phoenix's
 * JDBC driver into a table with a global index on (account, day), and the
 * index query "an account's messages on a day".
 *
 * <pre>
 * Bench --url URL --table NAME --records FILE --out PREFIX
 *       [--threads T] [--batch B] [--immutable]
 *       [--queries N] [--query-threads Q] [--warmup W] [--drop]
 * </pre>
 *
 * The write drops and creates the table and its index, then runs T threads,
 * thread t upserting the records of client t in the file in file order,
 * committing every B records (and the rest at the end). Its clock runs from
 * the first upsert to the last commit, per thread; rows/s is the sum over the
 * threads of rows over elapsed time, and the latency of a batch is that of its
 * last upsert and the commit, the call that sends it (as hbkit bench times
 * its batches). The table must then hold every record.
 *
 * With N > 0, Q threads then run W unmeasured queries each and N measured
 * ones; query i (i counting on from q*N in thread q) asks for the messages of
 * account "acct" + (i mod 100) on the UTC day of the file's first message,
 * through the index, newest first, and reads every column of every row. Each
 * answer's size is checked against the file. --drop drops the table at the
 * end.
 *
 * The results go to PREFIX-write.json and PREFIX-query.json, each one JSON
 * object in the shape of an hbkit bench result.
 */
public final class Bench {
  private Bench() {}

  /** One message, as hbkit bench --records writes it. */
  record Msg(int client, String mobile, long sentAt, int seq, String account, String content,
      boolean delivered) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        usage();
      }
      if (a.equals("--immutable") || a.equals("--explain") || a.equals("--drop")) {
        o.put(a.substring(2), "true");
        continue;
      }
      if (i + 1 >= args.length) {
        usage();
      }
      o.put(a.substring(2), args[++i]);
    }
    String url = need(o, "url");
    String table = need(o, "table").toUpperCase(Locale.ROOT);
    List<Msg> msgs = readRecords(Path.of(need(o, "records")));
    String out = need(o, "out");
    int threads = Integer.parseInt(o.getOrDefault("threads", "1"));
    int batch = Integer.parseInt(o.getOrDefault("batch", "100"));
    int queries = Integer.parseInt(o.getOrDefault("queries", "0"));
    int queryThreads = Integer.parseInt(o.getOrDefault("query-threads", "1"));
    int warmup = Integer.parseInt(o.getOrDefault("warmup", "0"));
    boolean immutable = o.containsKey("immutable");
    Properties props = new Properties();
    // Must agree with the server's hbase-site.xml (tools/hbase/config.go).
    props.setProperty("phoenix.schema.isNamespaceMappingEnabled", "false");

    long t0 = System.nanoTime();
    try (Connection c = DriverManager.getConnection(url, props)) {
      phase("connect (on a fresh HBase, the first creates Phoenix's SYSTEM tables)", t0);
      t0 = System.nanoTime();
      create(c, table, immutable);
      phase("drop and create " + table + " and its index", t0);
    }
    t0 = System.nanoTime();
    String w = write(url, props, table, immutable, msgs, threads, batch);
    phase("write " + msgs.size() + " records and count them", t0);
    Files.writeString(Path.of(out + "-write.json"), w + "\n", StandardCharsets.UTF_8);
    System.out.println(w);
    if (queries > 0) {
      t0 = System.nanoTime();
      String q = query(url, props, table, immutable, msgs, queryThreads, queries, warmup,
          o.containsKey("explain"));
      Files.writeString(Path.of(out + "-query.json"), q + "\n", StandardCharsets.UTF_8);
      System.out.println(q);
      phase((warmup + queries) * queryThreads + " queries", t0);
    }
    if (o.containsKey("drop")) {
      t0 = System.nanoTime();
      try (Connection c = DriverManager.getConnection(url, props); Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
      phase("drop " + table, t0);
    }
  }

  private static void usage() {
    System.err.println("usage: Bench --url URL --table NAME --records FILE --out PREFIX"
        + " [--threads T] [--batch B] [--immutable]"
        + " [--queries N] [--query-threads Q] [--warmup W] [--explain] [--drop]");
    System.exit(2);
  }

  private static String need(Map<String, String> o, String k) {
    String v = o.get(k);
    if (v == null) {
      System.err.println("Bench: --" + k + " is required");
      usage();
    }
    return v;
  }

  /** readRecords reads the tab-separated file of hbkit bench --records. */
  static List<Msg> readRecords(Path p) throws IOException {
    List<Msg> out = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
      String line;
      int n = 0;
      while ((line = r.readLine()) != null) {
        n++;
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t", -1);
        if (f.length != 7) {
          throw new IOException(p + ":" + n + ": " + f.length + " fields, want 7");
        }
        out.add(new Msg(Integer.parseInt(f[0]), f[1], Long.parseLong(f[2]), Integer.parseInt(f[3]),
            f[4], f[5], f[6].equals("1")));
      }
    }
    if (out.isEmpty()) {
      throw new IOException(p + ": no records");
    }
    return out;
  }

  static String indexName(String table) {
    return table + "_ACCOUNT_DAY";
  }

  /**
   * The SMS columns with the primary key in the order of hbkit's row key
   * (mobile, sent time newest first, unique suffix), and the index on
   * (account, day of the send time), which carries the delivered flag as
   * hbkit's entries do. Both in one region, with the column family options
   * of hbkit's tables (Snappy, row Bloom filter, one version).
   */
  static void create(Connection c, String table, boolean immutable) throws SQLException {
    String opts = "COMPRESSION='SNAPPY', BLOOMFILTER='ROW', VERSIONS=1";
    // Phoenix's advice for tables whose schema does not change: resolve
    // the table's metadata from the client's cache instead of asking
    // SYSTEM.CATALOG before every statement.
    String cache = "UPDATE_CACHE_FREQUENCY=900000";
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      s.execute("CREATE TABLE " + table + " ("
          + " MOBILE CHAR(11) NOT NULL,"
          + " SENT_AT DATE NOT NULL,"
          + " SEQ INTEGER NOT NULL,"
          + " ACCOUNT VARCHAR,"
          + " CONTENT VARCHAR,"
          + " DELIVERED BOOLEAN,"
          + " CONSTRAINT PK PRIMARY KEY (MOBILE, SENT_AT DESC, SEQ))"
          + " " + opts + ", " + cache + (immutable ? ", IMMUTABLE_ROWS=true" : ""));
      s.execute("CREATE INDEX " + indexName(table) + " ON " + table
          + " (ACCOUNT, TRUNC(SENT_AT, 'DAY')) INCLUDE (DELIVERED) " + opts);
    }
  }

  static void phase(String what, long t0) {
    System.err.printf(Locale.ROOT, "Bench: %s: %.1fs%n", what, (System.nanoTime() - t0) / 1e9);
  }

  static String write(String url, Properties props, String table, boolean immutable, List<Msg> msgs,
      int threads, int batch) throws Exception {
    List<List<Msg>> per = split(msgs, threads);
    String sql = "UPSERT INTO " + table
        + " (MOBILE, SENT_AT, SEQ, ACCOUNT, CONTENT, DELIVERED) VALUES (?, ?, ?, ?, ?, ?)";
    Result res = run(threads, t -> {
      Histogram h = newHistogram();
      List<Msg> mine = per.get(t);
      try (Connection c = DriverManager.getConnection(url, props);
          PreparedStatement ps = c.prepareStatement(sql)) {
        c.setAutoCommit(false);
        long start = System.nanoTime();
        int pending = 0;
        for (int i = 0; i < mine.size(); i++) {
          long t0 = System.nanoTime();
          Msg m = mine.get(i);
          ps.setString(1, m.mobile());
          ps.setDate(2, new java.sql.Date(m.sentAt()));
          ps.setInt(3, m.seq());
          ps.setString(4, m.account());
          ps.setString(5, m.content());
          ps.setBoolean(6, m.delivered());
          ps.executeUpdate();
          if (++pending == batch) {
            c.commit();
            pending = 0;
            if (i > 0) {
              record(h, System.nanoTime() - t0);
            }
          }
        }
        if (pending > 0) {
          c.commit();
        }
        return new ThreadResult(h, System.nanoTime() - start, mine.size(), 0);
      }
    });
    try (Connection c = DriverManager.getConnection(url, props);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      long n = rs.getLong(1);
      if (n != msgs.size()) {
        throw new IllegalStateException(table + " holds " + n + " rows after the load, want " + msgs.size());
      }
    }
    return res.json("phoenixUpsert", immutable ? "immutable" : "mutable", threads, batch, msgs.size());
  }

  static String query(String url, Properties props, String table, boolean immutable, List<Msg> msgs,
      int threads, int queries, int warmup, boolean explain) throws Exception {
    long day = Math.floorDiv(msgs.get(0).sentAt(), 86_400_000L) * 86_400_000L;
    Map<String, Integer> want = new HashMap<>();
    for (Msg m : msgs) {
      if (Math.floorDiv(m.sentAt(), 86_400_000L) * 86_400_000L == day) {
        want.merge(m.account(), 1, Integer::sum);
      }
    }
    String sql = "SELECT /*+ INDEX(" + table + " " + indexName(table) + ") */"
        + " MOBILE, SENT_AT, SEQ, ACCOUNT, CONTENT, DELIVERED FROM " + table
        + " WHERE ACCOUNT = ? AND TRUNC(SENT_AT, 'DAY') = ?"
        + " ORDER BY SENT_AT DESC, SEQ DESC";
    String plan = "";
    try (Connection c = DriverManager.getConnection(url, props);
        PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
      ps.setString(1, "acct000");
      ps.setDate(2, new java.sql.Date(day));
      StringBuilder b = new StringBuilder();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          b.append(rs.getString(1)).append('\n');
        }
      }
      plan = b.toString();
      if (explain) {
        System.err.print(plan);
      }
      if (!plan.contains(indexName(table))) {
        throw new IllegalStateException("the query does not use " + indexName(table) + ":\n" + plan);
      }
    }
    Result res = run(threads, t -> {
      Histogram h = newHistogram();
      long rows = 0;
      try (Connection c = DriverManager.getConnection(url, props);
          PreparedStatement ps = c.prepareStatement(sql)) {
        long first = (long) t * queries;
        long start = 0;
        for (long i = first - warmup; i < first + queries; i++) {
          if (i == first) {
            start = System.nanoTime();
          }
          long t0 = System.nanoTime();
          String account = String.format("acct%03d", Math.floorMod(i, 100));
          ps.setString(1, account);
          ps.setDate(2, new java.sql.Date(day));
          int n = 0;
          long last = Long.MAX_VALUE;
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              rs.getString(1);
              long sent = rs.getDate(2).getTime();
              rs.getInt(3);
              rs.getString(4);
              rs.getString(5);
              rs.getBoolean(6);
              if (sent > last) {
                throw new IllegalStateException("query of " + account + ": not newest first");
              }
              last = sent;
              n++;
            }
          }
          if (i > first) {
            record(h, System.nanoTime() - t0);
          }
          int w = want.getOrDefault(account, 0);
          if (n != w) {
            throw new IllegalStateException("query of " + account + " returned " + n + " messages, want " + w);
          }
          if (i >= first) {
            rows += n;
          }
        }
        return new ThreadResult(h, System.nanoTime() - start, queries, rows);
      }
    });
    return res.json("phoenixAccountDayQuery", immutable ? "immutable" : "mutable", threads, 0,
        (long) threads * queries);
  }

  static List<List<Msg>> split(List<Msg> msgs, int threads) {
    List<List<Msg>> per = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      per.add(new ArrayList<>());
    }
    for (Msg m : msgs) {
      if (m.client() < 0 || m.client() >= threads) {
        throw new IllegalArgumentException("record of client " + m.client() + " in a run of " + threads
            + " threads: write the file with the same --threads");
      }
      per.get(m.client()).add(m);
    }
    return per;
  }

  interface Task {
    ThreadResult call(int t) throws Exception;
  }

  record ThreadResult(Histogram hist, long elapsedNanos, long ops, long rowsRead) {}

  record Result(List<ThreadResult> threads, long wallNanos) {
    String json(String workload, String kind, int nthreads, int batch, long ops) {
      Histogram merged = newHistogram();
      double perSec = 0;
      long read = 0;
      for (ThreadResult tr : threads) {
        merged.add(tr.hist());
        if (tr.elapsedNanos() > 0) {
          perSec += tr.ops() / (tr.elapsedNanos() / 1e9);
        }
        read += tr.rowsRead();
      }
      return String.format(Locale.ROOT,
          "{\"workload\":\"%s\",\"kind\":\"%s\",\"threads\":%d,\"batch\":%d,\"rows\":%d,"
              + "\"elapsed_ms\":%.1f,\"rows_per_sec\":%.1f,\"rows_read\":%d,"
              + "\"latency\":{\"count\":%d,\"mean_us\":%.1f,\"p50_us\":%d,\"p95_us\":%d,\"p99_us\":%d,"
              + "\"p999_us\":%d,\"max_us\":%d}}",
          workload, kind, nthreads, batch, ops, wallNanos / 1e6, perSec, read,
          merged.getTotalCount(), merged.getMean(), merged.getValueAtPercentile(50),
          merged.getValueAtPercentile(95), merged.getValueAtPercentile(99),
          merged.getValueAtPercentile(99.9), merged.getMaxValue());
    }
  }

  static Result run(int threads, Task task) throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(threads);
    try {
      List<Future<ThreadResult>> fs = new ArrayList<>();
      long start = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        final int tt = t;
        fs.add(ex.submit(() -> task.call(tt)));
      }
      List<ThreadResult> out = new ArrayList<>();
      for (Future<ThreadResult> f : fs) {
        out.add(f.get());
      }
      return new Result(out, System.nanoTime() - start);
    } finally {
      ex.shutdownNow();
    }
  }

  /** As hbkit bench: microseconds, up to a minute, three significant digits. */
  static Histogram newHistogram() {
    return new Histogram(1, 60_000_000L, 3);
  }

  static void record(Histogram h, long nanos) {
    h.recordValue(Math.max(0, Math.min(60_000_000L, nanos / 1000)));
  }
}
