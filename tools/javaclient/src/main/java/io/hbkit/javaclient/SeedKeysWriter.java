package io.hbkit.javaclient;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.MD5Hash;

/**
 * Writes rows whose keys are built the way the seeds' Java code builds them,
 * with HBase's Java client and plain Puts, into tables that already exist:
 *
 * <ul>
 *   <li>--hash: seed 003's hash key, {@code
 *       Bytes.add(MD5Hash.getMD5AsHex(Bytes.toBytes(id)).substring(0, 8).getBytes(),
 *       Bytes.toBytes(id))}, for ids of both signs and the extremes;
 *   <li>--partition: seed 003's PartitionRowKeyManager ({@code
 *       Bytes.add(Bytes.toBytes(id % partition), Bytes.toBytes(id))}), ids
 *       counted up from 1 as the seed's manager does, plus 0 and the largest
 *       longs (a negative id would give a negative partition);
 *   <li>--index: seed 001's inverted index table2: row province + "_" + age,
 *       family user, one column per uid, value 1 ({@code Bytes.toBytes(1)});
 *   <li>--generator (optional): seed 003's HashRowKeyGenerator, whose hash is
 *       of the low bytes of the id and of a clock; its rows hold only a name.
 * </ul>
 *
 * <p>Rows of the hash and partition tables carry, in family info: name =
 * Bytes.toBytes(String), score = Bytes.toBytes(long), level =
 * Bytes.toBytes(int), rank = Bytes.toBytes(short).
 *
 * <p>Usage: {@code SeedKeysWriter --zk host:port --hash TABLE --partition
 * TABLE --partitions P --index TABLE --count N [--generator TABLE]}. It
 * prints a manifest, one JSON object a line: kind (hash, partition,
 * province_age or hash_generator), key (the row key's hex), and the fields
 * it used: id, name, score, level, rank (and partitions) for the first two;
 * province, age, uids and value (hex) for the third; id, time (ms) and name
 * for the generator's.
 */
public final class SeedKeysWriter {
  private static final byte[] INFO = Bytes.toBytes("info");
  private static final byte[] USER = Bytes.toBytes("user");
  private static final String[] PROVINCES = {"辽宁省", "吉林省", "广东省", "新疆维吾尔自治区", "Hong Kong"};
  private static final int[] AGES = {20, 0, 7, 100, 35, -1};

  private SeedKeysWriter() {}

  /** Seed 003's hash key, as the post writes it for a long id. */
  static byte[] hashKey(long currentId) {
    byte[] rowkey = Bytes.add(MD5Hash.getMD5AsHex(Bytes.toBytes(currentId)).substring(0, 8).getBytes(),
        Bytes.toBytes(currentId));
    return rowkey;
  }

  /**
   * Seed 003's HashRowKeyGenerator, as the post writes it: the hash is of the
   * low 4 bytes of the id and of a clock that advances by a random step, so
   * the key cannot be computed from the id alone. The getters are not in the
   * seed: they report the id and time the last key was built from.
   */
  static final class HashRowKeyGenerator {
    private long currentId = 1;
    private long currentTime = System.currentTimeMillis();
    private Random random = new Random();

    public byte[] nextId() {
      try {
        currentTime += random.nextInt(1000);
        byte[] lowT = Bytes.copy(Bytes.toBytes(currentTime), 4, 4);
        byte[] lowU = Bytes.copy(Bytes.toBytes(currentId), 4, 4);
        return Bytes.add(MD5Hash.getMD5AsHex(Bytes.add(lowU, lowT)).substring(0, 8).getBytes(),
            Bytes.toBytes(currentId));
      } finally {
        currentId++;
      }
    }

    long lastId() {
      return currentId - 1;
    }

    long lastTime() {
      return currentTime;
    }
  }

  /** Seed 003's PartitionRowKeyManager key generation, as the post writes it, with a settable first id. */
  static final class PartitionRowKeyManager {
    public static final int DEFAULT_PARTITION_AMOUNT = 20;
    private long currentId = 1;
    private int partition = DEFAULT_PARTITION_AMOUNT;

    public void setPartition(int partition) {
      this.partition = partition;
    }

    /** Not in the seed: where the ids start, to reach 0 and Long.MAX_VALUE. */
    public void setCurrentId(long currentId) {
      this.currentId = currentId;
    }

    public long currentId() {
      return currentId;
    }

    public byte[] nextId() {
      try {
        long partitionId = currentId % partition;
        return Bytes.add(Bytes.toBytes(partitionId), Bytes.toBytes(currentId));
      } finally {
        currentId++;
      }
    }
  }

  /** The ids of the hash table: both signs, the extremes, and a run from 1. */
  static List<Long> hashIds(int count) {
    List<Long> ids = new ArrayList<>(List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, Long.MAX_VALUE));
    for (int i = 1; ids.size() < count; i++) {
      ids.add(i % 3 == 0 ? -(long) i * 7919 : (long) i);
    }
    return ids;
  }

  /** The columns every row of the hash and partition tables carries, derived from its id. */
  static Put withColumns(Put p, long id, StringBuilder json) {
    String name = id == 0 ? "" : (id % 2 == 0 ? "用户 " + id : "user \"" + id + "\"");
    long score = id == Long.MIN_VALUE ? Long.MAX_VALUE : -id * 3;
    int level = (int) (id % 1000) - 500;
    short rank = (short) (id % 70000);
    p.addColumn(INFO, Bytes.toBytes("name"), Bytes.toBytes(name));
    p.addColumn(INFO, Bytes.toBytes("score"), Bytes.toBytes(score));
    p.addColumn(INFO, Bytes.toBytes("level"), Bytes.toBytes(level));
    p.addColumn(INFO, Bytes.toBytes("rank"), Bytes.toBytes(rank));
    json.append(",\"id\":").append(id)
        .append(",\"name\":").append(quote(name))
        .append(",\"score\":").append(score)
        .append(",\"level\":").append(level)
        .append(",\"rank\":").append(rank);
    return p;
  }

  public static void main(String[] args) throws Exception {
    String zk = "127.0.0.1:2181";
    String hashTable = null;
    String partitionTable = null;
    String indexTable = null;
    String generatorTable = null;
    int partitions = 10;
    int count = -1;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        usage("missing value for " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--zk": zk = v; break;
        case "--hash": hashTable = v; break;
        case "--partition": partitionTable = v; break;
        case "--partitions": partitions = Integer.parseInt(v); break;
        case "--index": indexTable = v; break;
        case "--generator": generatorTable = v; break;
        case "--count": count = Integer.parseInt(v); break;
        default: usage("unknown flag " + a);
      }
    }
    if (hashTable == null || partitionTable == null || indexTable == null || count < 5 || partitions < 1) {
      usage("want --hash, --partition, --index, --count N >= 5, --partitions P >= 1");
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

    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    List<String> manifest = new ArrayList<>();
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Table ht = conn.getTable(TableName.valueOf(hashTable));
        Table pt = conn.getTable(TableName.valueOf(partitionTable));
        Table it = conn.getTable(TableName.valueOf(indexTable))) {
      List<Put> puts = new ArrayList<>();
      for (long id : hashIds(count)) {
        byte[] key = hashKey(id);
        StringBuilder json = new StringBuilder("{\"kind\":\"hash\",\"key\":\"").append(Bytes.toHex(key)).append('"');
        puts.add(withColumns(new Put(key), id, json));
        manifest.add(json.append('}').toString());
      }
      ht.put(puts);

      puts.clear();
      PartitionRowKeyManager counted = new PartitionRowKeyManager();
      counted.setPartition(partitions);
      PartitionRowKeyManager zero = new PartitionRowKeyManager();
      zero.setPartition(partitions);
      zero.setCurrentId(0);
      PartitionRowKeyManager largest = new PartitionRowKeyManager();
      largest.setPartition(partitions);
      largest.setCurrentId(Long.MAX_VALUE - 2);
      List<PartitionRowKeyManager> runs = List.of(zero, counted, largest);
      int[] lengths = {1, count - 4, 3};
      for (int r = 0; r < runs.size(); r++) {
        PartitionRowKeyManager m = runs.get(r);
        for (int i = 0; i < lengths[r]; i++) {
          long id = m.currentId();
          byte[] key = m.nextId();
          StringBuilder json = new StringBuilder("{\"kind\":\"partition\",\"partitions\":").append(partitions)
              .append(",\"key\":\"").append(Bytes.toHex(key)).append('"');
          puts.add(withColumns(new Put(key), id, json));
          manifest.add(json.append('}').toString());
        }
      }
      pt.put(puts);

      // Seed 001's table2: users spread over provinces and ages, one index row
      // per (province, age) holding a column per uid.
      Map<String, List<String>> rows = new LinkedHashMap<>();
      Map<String, String[]> fields = new LinkedHashMap<>();
      for (int j = 0; j < count * 3; j++) {
        String province = PROVINCES[j % PROVINCES.length];
        int age = AGES[(j / PROVINCES.length) % AGES.length];
        String uid = j % 11 == 10 ? "9" + (1_000_000_000L + j) : "u" + j;
        String rowkey = province + "_" + age;
        rows.computeIfAbsent(rowkey, k -> new ArrayList<>()).add(uid);
        fields.put(rowkey, new String[] {province, String.valueOf(age)});
      }
      puts.clear();
      byte[] one = Bytes.toBytes(1);
      for (Map.Entry<String, List<String>> e : rows.entrySet()) {
        byte[] key = Bytes.toBytes(e.getKey());
        Put p = new Put(key);
        StringBuilder uids = new StringBuilder();
        for (String uid : e.getValue()) {
          p.addColumn(USER, Bytes.toBytes(uid), one);
          uids.append(uids.length() == 0 ? "" : ",").append(quote(uid));
        }
        puts.add(p);
        String[] f = fields.get(e.getKey());
        manifest.add("{\"kind\":\"province_age\",\"key\":\"" + Bytes.toHex(key) + "\",\"province\":" + quote(f[0])
            + ",\"age\":" + f[1] + ",\"uids\":[" + uids + "],\"value\":\"" + Bytes.toHex(one) + "\"}");
      }
      it.put(puts);

      if (generatorTable != null) {
        try (Table gt = conn.getTable(TableName.valueOf(generatorTable))) {
          puts.clear();
          HashRowKeyGenerator gen = new HashRowKeyGenerator();
          for (int i = 0; i < count; i++) {
            byte[] key = gen.nextId();
            puts.add(new Put(key).addColumn(INFO, Bytes.toBytes("name"), Bytes.toBytes("generated " + gen.lastId())));
            manifest.add("{\"kind\":\"hash_generator\",\"key\":\"" + Bytes.toHex(key) + "\",\"id\":" + gen.lastId()
                + ",\"time\":" + gen.lastTime() + ",\"name\":" + quote("generated " + gen.lastId()) + "}");
          }
          gt.put(puts);
        }
      }
    }
    for (String line : manifest) {
      out.println(line);
    }
  }

  /** s as a JSON string. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  private static void usage(String why) {
    System.err.println("SeedKeysWriter: " + why);
    System.err.println("usage: SeedKeysWriter --zk host:port --hash TABLE --partition TABLE --partitions P"
        + " --index TABLE --count N [--generator TABLE]");
    System.exit(2);
  }
}
