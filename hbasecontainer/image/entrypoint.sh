#!/bin/sh
# Entrypoint of the hbkit HBase image (hbasecontainer/Dockerfile): writes
# hbase-site.xml from the environment, then runs a standalone HBase
# (ZooKeeper, master and one region server in one JVM) in the foreground,
# logging to the console; the master's ready line also goes to
# $HBASE_STATE/ready (log4j2.properties), which the HEALTHCHECK tests.
#
#   HBASE_ZK_PORT, HBASE_MASTER_PORT, HBASE_RS_PORT   ports (2181, 16000, 16020)
#   HBASE_ADVERTISE_HOST  the host name the servers publish in ZooKeeper and
#                         hbase:meta, the one clients dial (127.0.0.1)
#   HBASE_BIND_HOST       the address the servers listen on (default: the
#                         advertised host; 0.0.0.0 behind published ports)
#   HBASE_HEAP            JVM heap (1g)
#   HBASE_STATE           state directory, emptied on start (/var/lib/hbase)
# java is the one on PATH (Java 17 or newer).
set -eu
state=$HBASE_STATE
bind=${HBASE_BIND_HOST:-$HBASE_ADVERTISE_HOST}
rm -rf "$state"
mkdir -p "$state/conf" "$state/tmp"
cp /opt/hbase/conf/log4j2.properties "$state/conf/"

prop() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }
{
	echo '<?xml version="1.0"?>'
	echo '<!-- written by the image entrypoint on every start -->'
	echo '<configuration>'
	prop hbase.cluster.distributed false
	prop hbase.rootdir "file://$state/root"
	prop hbase.tmp.dir "$state/tmp"
	prop hbase.zookeeper.property.dataDir "$state/zk"
	prop hbase.unsafe.stream.capability.enforce false
	prop hbase.zookeeper.quorum "$HBASE_ADVERTISE_HOST"
	prop hbase.zookeeper.property.clientPort "$HBASE_ZK_PORT"
	prop hbase.master.hostname "$HBASE_ADVERTISE_HOST"
	prop hbase.unsafe.regionserver.hostname "$HBASE_ADVERTISE_HOST"
	prop hbase.master.port "$HBASE_MASTER_PORT"
	prop hbase.master.ipc.address "$bind"
	prop hbase.regionserver.ipc.address "$bind"
	prop hbase.zookeeper.property.clientPortAddress "$bind"
	prop hbase.regionserver.port "$HBASE_RS_PORT"
	prop hbase.master.info.port -1
	prop hbase.regionserver.info.port -1
	prop hbase.io.compress.snappy.codec org.apache.hadoop.hbase.io.compress.xerial.SnappyCodec
	prop hbase.table.sanity.checks true
	echo '</configuration>'
} >"$state/conf/hbase-site.xml"

exec java -Xms256m "-Xmx$HBASE_HEAP" -XX:+UseG1GC \
	-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true \
	--add-modules jdk.unsupported \
	--add-opens java.base/java.io=ALL-UNNAMED \
	--add-opens java.base/java.nio=ALL-UNNAMED \
	--add-opens java.base/sun.nio.ch=ALL-UNNAMED \
	--add-opens java.base/java.lang=ALL-UNNAMED \
	--add-opens java.base/jdk.internal.ref=ALL-UNNAMED \
	--add-opens java.base/java.lang.reflect=ALL-UNNAMED \
	--add-opens java.base/java.util=ALL-UNNAMED \
	--add-opens java.base/java.util.concurrent=ALL-UNNAMED \
	--add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
	--add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED \
	--add-exports java.base/sun.net.dns=ALL-UNNAMED \
	--add-exports java.base/sun.net.util=ALL-UNNAMED \
	-Dzookeeper.admin.enableServer=false \
	-Dlog4j2.configurationFile="$state/conf/log4j2.properties" \
	-cp "$state/conf:$(cat /opt/hbase/conf/classpath)" \
	org.apache.hadoop.hbase.master.HMaster start
