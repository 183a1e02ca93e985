package io.hbkit.javaclient;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Writes seed-000 SMS messages into a data table and its index table the way
 * a Java application following seed 000 does: plain Puts with HBase's Java
 * client, server-assigned timestamps, no bookkeeping columns.
 *
 * <p>Keys, as hbkit's schema.SMSTable declares the seed's design:
 *
 * <ul>
 *   <li>data row: reversed mobile (11 digits) + Long.MAX_VALUE - send time in
 *       ms (19 digits) + unique suffix (4 lowercase hex digits);
 *   <li>index row: hash(mobile) % 10 + yyyyMMdd + the first 16 lowercase hex
 *       digits of md5(account) + mobile + 235959999 - HHmmssSSS (9 digits) +
 *       the same unique suffix; dates and times of day in UTC.
 * </ul>
 *
 * <p>The seed writes "hash mobile % 10" without naming the hash. hbkit's
 * schema pins FNV-1a 32 over the mobile's bytes (keys.Hash32), not
 * String.hashCode: a writer using another hash puts entries in buckets the
 * readers compute differently, so this program uses FNV-1a, as every client of
 * the schema must.
 *
 * <p>Cells, family "cf": data row a = account, c = content (UTF-8), d =
 * delivered (Bytes.toBytes(boolean): 0xff or 0x00); index entry row = the data
 * row key, d = delivered.
 *
 * <p>Usage: {@code SeedWriter --zk host:port --data TABLE --index TABLE
 * --count N [--stale K] [--orphan K] [--missing K] [--batch B]}. It writes N
 * messages with their entries, the first K of them (--stale) with an entry
 * carrying the wrong delivered flag; then --orphan messages with an entry and no
 * data row, and --missing messages with a data row and no entry. It prints one
 * line per message, tab-separated: kind (ok, stale, orphan or missing), mobile,
 * send time in ms, unique suffix, account, delivered (true/false), content.
 */
public final class SeedWriter {
  private static final byte[] CF = Bytes.toBytes("cf");
  private static final String[] ACCOUNTS = {"acme", "globex", "initech"};
  /** 2024-03-05T00:00:00Z. */
  private static final long BASE_MS = 1709596800000L;
  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd");

  private SeedWriter() {}

  /** One message of the seed's SMS store. */
  static final class Sms {
    String mobile;
    long sentMs;
    int seq;
    String account;
    String content;
    boolean delivered;
  }

  /** The i-th message: a third as many mobiles as messages, three accounts, one every ~20 minutes. */
  static Sms message(int i, int count) {
    int mobiles = Math.max(1, count / 3);
    Sms m = new Sms();
    int at = i;
    if (i % 50 == 49) {
      at = i - 1; // same mobile, same millisecond as the previous one: told apart by the suffix
    }
    m.mobile = String.format("139%08d", 1000 + at % mobiles);
    m.sentMs = BASE_MS + at * 1_234_567L;
    m.seq = i & 0xffff;
    m.account = ACCOUNTS[i % ACCOUNTS.length];
    m.content = "短信 " + i + " from " + m.account;
    m.delivered = i % 3 == 0;
    return m;
  }

  static String dataKey(Sms m) {
    return new StringBuilder(m.mobile).reverse()
        + String.format("%019d", Long.MAX_VALUE - m.sentMs)
        + String.format("%04x", m.seq);
  }

  /** FNV-1a 32 of s's UTF-8 bytes, modulo n (unsigned). */
  static int bucket(String s, int n) {
    int h = 0x811c9dc5;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x01000193;
    }
    return Integer.remainderUnsigned(h, n);
  }

  static String md5Hex(String s) throws Exception {
    byte[] sum = MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
    StringBuilder out = new StringBuilder();
    for (byte b : sum) {
      out.append(String.format("%02x", b & 0xff));
    }
    return out.toString();
  }

  static String indexKey(Sms m) throws Exception {
    ZonedDateTime t = Instant.ofEpochMilli(m.sentMs).atZone(ZoneOffset.UTC);
    int clock = t.getHour() * 10_000_000 + t.getMinute() * 100_000 + t.getSecond() * 1_000
        + t.getNano() / 1_000_000;
    return bucket(m.mobile, 10)
        + DAY.format(t)
        + md5Hex(m.account).substring(0, 16)
        + m.mobile
        + String.format("%09d", 235_959_999 - clock)
        + String.format("%04x", m.seq);
  }

  static Put dataPut(Sms m) {
    Put p = new Put(Bytes.toBytes(dataKey(m)));
    p.addColumn(CF, Bytes.toBytes("a"), Bytes.toBytes(m.account));
    p.addColumn(CF, Bytes.toBytes("c"), Bytes.toBytes(m.content));
    p.addColumn(CF, Bytes.toBytes("d"), Bytes.toBytes(m.delivered));
    return p;
  }

  static Put entryPut(Sms m, boolean delivered) throws Exception {
    Put p = new Put(Bytes.toBytes(indexKey(m)));
    p.addColumn(CF, Bytes.toBytes("row"), Bytes.toBytes(dataKey(m)));
    p.addColumn(CF, Bytes.toBytes("d"), Bytes.toBytes(delivered));
    return p;
  }

  public static void main(String[] args) throws Exception {
    String zk = "127.0.0.1:2181";
    String dataTable = null;
    String indexTable = null;
    int count = -1;
    int stale = 0;
    int orphan = 0;
    int missing = 0;
    int batch = 100;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        usage("missing value for " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--zk": zk = v; break;
        case "--data": dataTable = v; break;
        case "--index": indexTable = v; break;
        case "--count": count = Integer.parseInt(v); break;
        case "--stale": stale = Integer.parseInt(v); break;
        case "--orphan": orphan = Integer.parseInt(v); break;
        case "--missing": missing = Integer.parseInt(v); break;
        case "--batch": batch = Integer.parseInt(v); break;
        default: usage("unknown flag " + a);
      }
    }
    if (dataTable == null || indexTable == null || count < 0 || stale > count || batch < 1) {
      usage("want --data, --index, --count N >= --stale K, --batch >= 1");
    }
    String host = zk.split(",")[0];
    String port = "2181";
    int colon = host.lastIndexOf(':');
    if (colon >= 0) {
      port = host.substring(colon + 1);
      host = host.substring(0, colon);
    }
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", host);
    conf.set("hbase.zookeeper.property.clientPort", port);

    List<Put> data = new ArrayList<>();
    List<Put> entries = new ArrayList<>();
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Table dt = conn.getTable(TableName.valueOf(dataTable));
        Table it = conn.getTable(TableName.valueOf(indexTable))) {
      int total = count + orphan + missing;
      for (int i = 0; i < total; i++) {
        Sms m = message(i, count);
        String kind;
        if (i < stale) {
          kind = "stale";
        } else if (i < count) {
          kind = "ok";
        } else if (i < count + orphan) {
          kind = "orphan";
        } else {
          kind = "missing";
        }
        if (!kind.equals("orphan")) {
          data.add(dataPut(m));
        }
        if (!kind.equals("missing")) {
          entries.add(entryPut(m, kind.equals("stale") ? !m.delivered : m.delivered));
        }
        if (data.size() >= batch || entries.size() >= batch || i == total - 1) {
          if (!data.isEmpty()) {
            dt.put(data); // the data rows first, then their entries
          }
          if (!entries.isEmpty()) {
            it.put(entries);
          }
          data.clear();
          entries.clear();
        }
        out.printf("%s\t%s\t%d\t%d\t%s\t%b\t%s%n", kind, m.mobile, m.sentMs, m.seq, m.account, m.delivered, m.content);
      }
    }
  }

  private static void usage(String why) {
    System.err.println("SeedWriter: " + why);
    System.err.println("usage: SeedWriter --zk host:port --data TABLE --index TABLE --count N"
        + " [--stale K] [--orphan K] [--missing K] [--batch B]");
    System.exit(2);
  }
}
