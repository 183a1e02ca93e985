// Package rpc speaks HBase 2.x's RPC protocol over TCP: the connection
// preamble and header, request and response framing, call multiplexing and
// connection failure handling. It is the transport under hbkit's native
// client (package hbase) and admin code.
//
// Use it from hbkit's own client code only: callers build protobuf requests
// from internal/pb, pick a service (ClientService on region servers,
// MasterService on the active master) and a method name, and get back a
// decoded response or an error. It knows nothing about regions, meta
// lookups, retries or backoff; those belong to package hbase, which decides
// what to do with a *RemoteError (re-locate, back off, fail) and retries
// within its context or budget using IsRetryable.
//
// # Connections
//
// A Conn is one TCP connection serving one service. It sends the preamble
// "HBas\x00\x50" (SIMPLE authentication), then a ConnectionHeader naming
// the OS user (or WithUser), the service, and a VersionInfo claiming 2.6
// (so the server enables its newer retry signals). No cell codec is
// announced unless WithCellBlockCodec is given, so every cell travels
// inside the protobuf messages.
//
// Calls are multiplexed: each gets a call id in [0, 2^31-1] (wrapping, and
// never one still outstanding), frames are written whole, one at a time (a
// caller writes its own request of up to 16 KiB when nobody else is
// writing, see below; otherwise a writer goroutine writes the queue in
// order), and a single reader goroutine hands each response to its caller
// by call id, in whatever order the server answers. Responses for
// ids nobody waits for (the caller gave up) are dropped. A response with
// call id >= 2^31 (-1 in Java) is a connection-level exception: the
// connection is failed.
//
// # Contexts
//
// Every call takes a context. Its deadline is sent as RequestHeader.timeout
// (milliseconds) so the server can abandon work the client no longer waits
// for; when the context ends the call returns at once and a late response
// is discarded. Cancelling a call never breaks the connection: a request
// not yet written is skipped, one already written is answered and dropped.
// A caller writing its own request (on a bare TCP socket, for a context
// with a deadline or none that can end) stops at its deadline when the
// server is slow to read; the rest of a frame cut in the middle is written
// in the background.
//
// A per-RPC timeout is a context that ends with cause ErrCallTimeout
// (CallTimeout). When it passes and the connection made no progress since
// the call was registered (no answer reached a waiting call, and no bytes
// came of an answer for one: bytes that feed no caller, such as a frame
// whose length was corrupted, are not progress), the server is taken to
// have stopped answering: the connection is closed and every call on it fails
// with a *ConnError wrapping ErrConnStalled, so that callers stop waiting
// on it and the Pool dials afresh. WithWriteTimeout catches the other side
// of a stall, a server that no longer reads.
//
// # Failures
//
// Every frame's parts (header, message, the cell block the header
// announces) must fill it exactly, which is checked from its first bytes,
// before its body is read: a length that is off would make the client read
// the rest of the connection from the wrong offset. Such an answer closes
// the connection (ErrCorruptAnswer). An answer that fills its frame but
// does not decode, or fails the caller's WithCheck, fails its call alone
// with a retryable *CorruptError.
//
// When the connection breaks (EOF, reset, malformed frame, fatal server
// exception, a stall), every pending call fails with a *ConnError, for
// which IsRetryable is true unless the server said retrying cannot help.
// ConnError.Sent (and RequestSent) tells whether the request may have
// reached the server: a request that did may have been executed, which
// matters to writes that are not idempotent. A Pool
// keeps one Conn per (address, service), shares dials between concurrent
// callers and replaces a broken Conn on next use; WithDialFunc maps the
// addresses HBase advertises to reachable ones.
//
// A rejected ConnectionHeader (unknown service, unsupported codec) is meant
// to be answered with a call id -1 exception, but HBase 2.6.4's Netty
// server logs the exception and just closes the socket: the client then
// sees a *ConnError wrapping io.EOF on the first call. A connection that
// breaks on every first call is therefore a configuration problem, not a
// transient one; higher layers bound their retries anyway.
//
// Server exceptions for one call are *RemoteError values carrying the Java
// class name: dispatch on Class with errors.As, never on the message.
//
// # Kerberos
//
// WithKerberos replaces SIMPLE authentication with SASL GSSAPI (HBase's
// KERBEROS auth method, preamble byte 81): a GSS-API initial token with
// the AP-REQ for the server's principal, then the RFC 4752 security-layer
// exchange, then the ConnectionHeader. With integrity or privacy every
// byte after the handshake travels in length-prefixed RFC 4121 Wrap
// tokens. A failed handshake is an *AuthError wrapping one of the Err*
// sentinels of sasl.go, inside the dial's *ConnError, and is not
// retryable. docs/security.md has the protocol and the local realm.
//
// # TLS
//
// WithTLS wraps the TCP connection in TLS (HBase 2.6's native RPC TLS)
// before the preamble; SASL, when configured, runs inside it. A failed
// handshake is a *TLSError wrapping one of the ErrTLS* sentinels of
// tls.go, inside the dial's *ConnError, and is not retryable. HBase with
// hbase.server.netty.tls.supportplaintext=false closes a plain connection
// without a byte, as a server going away may: such a close fails the
// connection's calls at once with a retryable *ConnError, and a Pool
// reports ErrTLSRequired only after two such closes in a row, when a TLS
// handshake with the server then completes.
//
// # Frames
//
// AppendRequest, ReadFrame and DecodeResponse expose the framing for tests
// and tools; they validate every length and never panic on bad input.
package rpc
