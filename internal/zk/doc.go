// Package zk reads the two ZooKeeper znodes an HBase 2.x client needs to
// start: the active master (<parent>/master) and the location of the
// hbase:meta region (<parent>/meta-region-server).
//
// The decoders (DecodeMaster, DecodeMetaRegionServer) strip HBase's
// RecoverableZooKeeper metadata prefix, check the "PBUF" magic and decode
// the small protobuf messages by hand with protowire, so this package does
// not depend on generated code. They never panic on arbitrary input.
//
// It is internal: the hbase client uses it to bootstrap. Nothing else
// should; in particular it is not a general ZooKeeper client (there is no
// watching, writing or listing).
package zk
