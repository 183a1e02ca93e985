// KerberosCheck checks the Kerberized local HBase with HBase's own Java
// client (tools/secure/check.sh runs it): it logs in from the client keytab,
// creates a table, writes and reads one row; with "simple" it connects as a
// SIMPLE client, which the server must refuse. When HBKIT_TLS_CA is set
// (tools/secure-hbase.sh with HBKIT_SECURE_TLS=1) the client speaks TLS,
// trusting that CA; with "notls" it is a Kerberos client without TLS,
// which the TLS-only server must refuse.
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.security.UserGroupInformation;

public class KerberosCheck {
  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "";
    boolean simple = mode.equals("simple");
    boolean refused = simple || mode.equals("notls");
    Configuration conf = HBaseConfiguration.create();
    String zk = System.getenv("HBKIT_ZK");
    conf.set("hbase.zookeeper.quorum", zk.substring(0, zk.indexOf(':')));
    conf.set("hbase.zookeeper.property.clientPort", zk.substring(zk.indexOf(':') + 1));
    conf.setInt("hbase.client.retries.number", 2);
    conf.setInt("hbase.rpc.timeout", 10000);
    conf.setInt("hbase.client.operation.timeout", 20000);
    String ca = System.getenv("HBKIT_TLS_CA");
    if (ca != null && !ca.isEmpty() && !mode.equals("notls")) {
      conf.setBoolean("hbase.client.netty.tls.enabled", true);
      conf.set("hbase.rpc.tls.truststore.location", ca);
      conf.set("hbase.rpc.tls.truststore.type", "PEM");
      System.out.println("java: tls, trusting " + ca);
    }
    if (!simple) {
      conf.set("hbase.security.authentication", "kerberos");
      conf.set("hadoop.security.authentication", "kerberos");
      conf.set("hbase.master.kerberos.principal", System.getenv("HBKIT_SERVER_PRINCIPAL"));
      conf.set("hbase.regionserver.kerberos.principal", System.getenv("HBKIT_SERVER_PRINCIPAL"));
      conf.set("hbase.rpc.protection", System.getenv("HBKIT_RPC_PROTECTION"));
      UserGroupInformation.setConfiguration(conf);
      UserGroupInformation.loginUserFromKeytab(System.getenv("HBKIT_PRINCIPAL"), System.getenv("HBKIT_KEYTAB"));
      System.out.println("java: logged in as " + UserGroupInformation.getCurrentUser());
    }
    TableName name = TableName.valueOf("javacheck");
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      if (!admin.tableExists(name)) {
        admin.createTable(TableDescriptorBuilder.newBuilder(name)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of("cf")).build());
      }
      try (Table t = c.getTable(name)) {
        t.put(new Put(Bytes.toBytes("row1")).addColumn(Bytes.toBytes("cf"), Bytes.toBytes("q"), Bytes.toBytes("written by Java over Kerberos")));
        Result r = t.get(new Get(Bytes.toBytes("row1")));
        System.out.println("java: read back cf:q = " + Bytes.toString(r.getValue(Bytes.toBytes("cf"), Bytes.toBytes("q"))));
      }
      System.out.println("java: tables " + Arrays.toString(admin.listTableNames()));
    } catch (Exception e) {
      Throwable root = e;
      while (root.getCause() != null) root = root.getCause();
      System.out.println("java: refused: " + root.getClass().getName() + ": " + root.getMessage());
      System.exit(refused ? 0 : 1);
    }
    if (refused) {
      System.out.println("java: a " + (simple ? "SIMPLE" : "plain (non-TLS)") + " client was let in");
      System.exit(1);
    }
  }
}
