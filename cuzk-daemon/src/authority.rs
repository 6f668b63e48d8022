//! Unix-socket connections from gRPC stacks that send the socket path as `:authority`.
//!
//! gRPC's C-core (Python, C++, Ruby, PHP), grpc-java and others fill the HTTP/2 `:authority`
//! of a `unix:` target with the socket path (`/run/cuzk/cuzk.sock`, or since C-core 1.57 its
//! percent-encoding). That is not a valid authority (RFC 3986: no `/` in a host; `http`'s
//! parser also refuses `%` outside user info), and the daemon's HTTP/2 server (h2, under tonic)
//! resets every such stream with PROTOCOL_ERROR. h2 has no setting to relax the check (its
//! maintainers keep it strict: hyperium/h2 #442, PR #487 unmerged), and on a unix socket the
//! authority names nothing anyway. So the unix listener wraps each connection in
//! [`AuthorityFix`], which reads the client's frames before h2 does and gives a header block
//! whose `:authority` would be refused the authority `localhost` instead, as grpc-go sends.
//!
//! HPACK is stateful (a dynamic table shared by the client's encoder and the server's
//! decoder), so one header block cannot be edited alone: every header block of the
//! connection is decoded here with the client's table and re-encoded for h2 as literals
//! without indexing, which leave h2's table empty and therefore always consistent. Frames
//! other than HEADERS and CONTINUATION pass unchanged; what the server writes passes
//! unchanged. Whatever would be a connection error to h2 (a block that does not decode, a
//! frame inside a block, a frame or header list over the server's limits, a table size over
//! the server's) ends the connection here: after a failed decode the two tables could no
//! longer be trusted to agree, and the limits keep a client from making the daemon decode a
//! block into gigabytes (one byte can name a 4 KiB table entry).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tonic::transport::server::Connected;

/// What every HTTP/2 client sends first (RFC 9113 section 3.4).
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const FRAME_HEADER: usize = 9;
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;
/// The largest frame payload accepted from the client and written towards h2: the protocol's
/// initial SETTINGS_MAX_FRAME_SIZE, which the daemon's server keeps (tonic's default).
const MAX_FRAME: usize = 16_384;
/// The HPACK table size the daemon's server allows its clients: SETTINGS_HEADER_TABLE_SIZE,
/// which it leaves at the protocol's initial 4096.
const MAX_TABLE: usize = 4096;
/// What a refused authority becomes.
const LOCALHOST: &[u8] = b"localhost";
/// The largest header block, encoded and decoded (sizes counted as HPACK does: name, value
/// and 32 per field). h2 under tonic refuses header lists over 16 KiB; this is above that, so
/// h2 still decides the cases near its limit, and far below what could hurt. gRPC's header
/// lists are a few hundred bytes.
const MAX_BLOCK: usize = 64 << 10;

/// A header block being gathered from HEADERS and its CONTINUATION frames.
struct Block {
    stream_id: u32,
    end_stream: bool,
    priority: Option<[u8; 5]>,
    fragment: Vec<u8>,
}

/// A client connection whose header blocks are normalized as the module doc says.
pub struct AuthorityFix<S> {
    inner: S,
    /// Bytes read from the client, not yet examined.
    input: Vec<u8>,
    /// Bytes ready for h2.
    output: Vec<u8>,
    /// How much of `output` h2 has read.
    output_read: usize,
    preface_seen: bool,
    /// Set once the client sent something other than HTTP/2: everything passes unchanged.
    passthrough: bool,
    /// Why the connection must end: reported to h2 once `output` is drained.
    failed: Option<String>,
    eof: bool,
    block: Option<Block>,
    decoder: loona_hpack::Decoder<'static>,
    /// Header blocks whose authority was replaced (for the log).
    rewritten: u64,
}

impl<S> AuthorityFix<S> {
    pub fn new(inner: S) -> AuthorityFix<S> {
        AuthorityFix {
            inner,
            input: Vec::new(),
            output: Vec::new(),
            output_read: 0,
            preface_seen: false,
            passthrough: false,
            failed: None,
            eof: false,
            block: None,
            decoder: {
                let mut decoder = loona_hpack::Decoder::new();
                decoder.set_max_allowed_table_size(MAX_TABLE);
                decoder
            },
            rewritten: 0,
        }
    }

    /// Moves what can be examined from `input` to `output`.
    fn process(&mut self) {
        if self.passthrough {
            self.output.append(&mut self.input);
            return;
        }
        if !self.preface_seen {
            let n = self.input.len().min(PREFACE.len());
            if self.input[..n] != PREFACE[..n] {
                self.passthrough = true;
                self.output.append(&mut self.input);
                return;
            }
            if n < PREFACE.len() {
                return;
            }
            self.output.extend(self.input.drain(..PREFACE.len()));
            self.preface_seen = true;
        }
        let mut at = 0;
        while self.failed.is_none() && self.input.len() - at >= FRAME_HEADER {
            let header = &self.input[at..at + FRAME_HEADER];
            let len =
                usize::from(header[0]) << 16 | usize::from(header[1]) << 8 | usize::from(header[2]);
            if len > MAX_FRAME {
                self.fail(format!(
                    "a frame of {len} bytes, over the {MAX_FRAME} allowed"
                ));
                break;
            }
            let end = at + FRAME_HEADER + len;
            if self.input.len() < end {
                break;
            }
            let frame = self.input[at..end].to_vec();
            at = end;
            self.frame(&frame);
        }
        // (`fail` has emptied the input already.)
        if self.failed.is_none() {
            self.input.drain(..at);
        }
    }

    /// Ends the connection (see the module doc).
    fn fail(&mut self, why: String) {
        tracing::debug!("unix-socket connection closed: {why}");
        self.failed = Some(why);
        self.block = None;
        self.input.clear();
    }

    /// One whole frame from the client.
    fn frame(&mut self, frame: &[u8]) {
        let (kind, flags) = (frame[3], frame[4]);
        let stream_id = u32::from_be_bytes([frame[5], frame[6], frame[7], frame[8]]) & 0x7fff_ffff;
        let payload = &frame[FRAME_HEADER..];
        match (kind, self.block.as_mut()) {
            (HEADERS, None) => {
                let Some((priority, fragment)) = headers_fragment(flags, payload) else {
                    return self.fail("a HEADERS frame whose padding does not fit".into());
                };
                self.block = Some(Block {
                    stream_id,
                    end_stream: flags & END_STREAM != 0,
                    priority,
                    fragment: fragment.to_vec(),
                });
            }
            (CONTINUATION, Some(block)) if block.stream_id == stream_id => {
                block.fragment.extend_from_slice(payload);
            }
            (_, Some(_)) => {
                return self.fail("a frame inside a header block".into());
            }
            (CONTINUATION, None) => {
                return self.fail("a CONTINUATION frame outside a header block".into());
            }
            _ => {
                self.output.extend_from_slice(frame);
                return;
            }
        }
        if self
            .block
            .as_ref()
            .is_some_and(|b| b.fragment.len() > MAX_BLOCK)
        {
            return self.fail(format!("a header block over {MAX_BLOCK} bytes"));
        }
        if flags & END_HEADERS != 0 {
            let block = self.block.take().expect("a block is being gathered");
            self.finish(block);
        }
    }

    /// Decodes a whole block, fixes its authority, and writes it re-encoded.
    fn finish(&mut self, block: Block) {
        let mut headers: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut size = 0;
        let decoded = self.decoder.decode_with_cb(&block.fragment, |name, value| {
            size += name.len() + value.len() + 32;
            if size <= MAX_BLOCK {
                headers.push((name.into_owned(), value.into_owned()));
            }
        });
        if let Err(e) = decoded {
            return self.fail(format!("a header block that does not decode: {e}"));
        }
        if size > MAX_BLOCK {
            return self.fail(format!("a header list of {size} bytes, over {MAX_BLOCK}"));
        }
        let mut fixed = false;
        for (name, value) in &mut headers {
            if name.as_slice() == b":authority"
                && http::uri::Authority::try_from(&value[..]).is_err()
            {
                *value = LOCALHOST.to_vec();
                fixed = true;
            }
        }
        if fixed {
            self.rewritten += 1;
            if self.rewritten == 1 {
                tracing::debug!("a unix-socket client sent a path as :authority; using localhost");
            }
        }
        let encoded = encode_literals(&headers);
        write_header_frames(&mut self.output, &block, &encoded);
    }

    fn pending_output(&self) -> &[u8] {
        &self.output[self.output_read..]
    }
}

/// The header block fragment of a HEADERS payload, and its priority fields; None if the
/// padding or priority fields do not fit.
fn headers_fragment(flags: u8, payload: &[u8]) -> Option<(Option<[u8; 5]>, &[u8])> {
    let mut rest = payload;
    let mut pad = 0;
    if flags & PADDED != 0 {
        let (&p, r) = rest.split_first()?;
        pad = usize::from(p);
        rest = r;
    }
    let mut priority = None;
    if flags & PRIORITY != 0 {
        if rest.len() < 5 {
            return None;
        }
        priority = Some(rest[..5].try_into().ok()?);
        rest = &rest[5..];
    }
    let len = rest.len().checked_sub(pad)?;
    Some((priority, &rest[..len]))
}

/// Every header as a literal without indexing with a new name, no Huffman coding (RFC 7541
/// section 6.2.2): nothing enters the receiver's dynamic table.
fn encode_literals(headers: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in headers {
        out.push(0x00);
        for s in [name, value] {
            // Writing to a Vec cannot fail.
            let _ = loona_hpack::encoder::encode_integer_into(s.len(), 7, 0, &mut out);
            out.extend_from_slice(s);
        }
    }
    out
}

/// `encoded` as a HEADERS frame and as many CONTINUATION frames as it needs.
fn write_header_frames(out: &mut Vec<u8>, block: &Block, encoded: &[u8]) {
    let first_room = MAX_FRAME - if block.priority.is_some() { 5 } else { 0 };
    let (first, mut rest) = encoded.split_at(encoded.len().min(first_room));
    let mut flags = if block.end_stream { END_STREAM } else { 0 };
    if block.priority.is_some() {
        flags |= PRIORITY;
    }
    if rest.is_empty() {
        flags |= END_HEADERS;
    }
    let priority = block.priority.unwrap_or_default();
    let priority = if block.priority.is_some() {
        &priority[..]
    } else {
        &[][..]
    };
    frame_header(
        out,
        priority.len() + first.len(),
        HEADERS,
        flags,
        block.stream_id,
    );
    out.extend_from_slice(priority);
    out.extend_from_slice(first);
    while !rest.is_empty() {
        let (chunk, r) = rest.split_at(rest.len().min(MAX_FRAME));
        rest = r;
        let flags = if rest.is_empty() { END_HEADERS } else { 0 };
        frame_header(out, chunk.len(), CONTINUATION, flags, block.stream_id);
        out.extend_from_slice(chunk);
    }
}

fn frame_header(out: &mut Vec<u8>, len: usize, kind: u8, flags: u8, stream_id: u32) {
    let len = len as u32;
    out.extend_from_slice(&len.to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&stream_id.to_be_bytes());
}

impl<S: AsyncRead + Unpin> AsyncRead for AuthorityFix<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            let pending = this.pending_output();
            if !pending.is_empty() {
                let n = pending.len().min(buf.remaining());
                buf.put_slice(&pending[..n]);
                this.output_read += n;
                if this.output_read == this.output.len() {
                    this.output.clear();
                    this.output_read = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if let Some(why) = &this.failed {
                return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, why.clone())));
            }
            if this.eof {
                // What is left is an incomplete frame or block: h2 sees the end.
                this.block = None;
                this.input.clear();
                if this.output.is_empty() {
                    return Poll::Ready(Ok(()));
                }
                continue;
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {
                    if read.filled().is_empty() {
                        this.eof = true;
                    } else {
                        this.input.extend_from_slice(read.filled());
                        this.process();
                    }
                }
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for AuthorityFix<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl<S: Connected> Connected for AuthorityFix<S> {
    type ConnectInfo = S::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.inner.connect_info()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        frame_header(&mut out, payload.len(), kind, flags, stream);
        out.extend_from_slice(payload);
        out
    }

    /// Runs `client_bytes` through the fix, fed in pieces of `step` bytes.
    async fn through(client_bytes: &[u8], step: usize) -> Vec<u8> {
        let (mut client, server) = tokio::io::duplex(1 << 20);
        let mut fix = AuthorityFix::new(server);
        for piece in client_bytes.chunks(step) {
            client.write_all(piece).await.unwrap();
        }
        drop(client);
        let mut out = Vec::new();
        fix.read_to_end(&mut out).await.unwrap();
        out
    }

    /// A decoded header block: its frame type, its flags and its (name, value) fields.
    type HeaderBlock = (u8, u8, Vec<(Vec<u8>, Vec<u8>)>);

    /// The header blocks of `bytes` (after the preface), decoded as h2 would.
    fn decode_blocks(bytes: &[u8]) -> Vec<HeaderBlock> {
        assert_eq!(&bytes[..24], PREFACE);
        let mut at = 24;
        let mut decoder = loona_hpack::Decoder::new();
        let mut blocks = Vec::new();
        let mut fragment = Vec::new();
        let mut first = (0, 0);
        while at < bytes.len() {
            let len = usize::from(bytes[at]) << 16
                | usize::from(bytes[at + 1]) << 8
                | usize::from(bytes[at + 2]);
            let (kind, flags) = (bytes[at + 3], bytes[at + 4]);
            let payload = &bytes[at + 9..at + 9 + len];
            at += 9 + len;
            match kind {
                HEADERS => {
                    let (_, f) = headers_fragment(flags, payload).unwrap();
                    fragment = f.to_vec();
                    first = (kind, flags);
                }
                CONTINUATION => fragment.extend_from_slice(payload),
                other => {
                    blocks.push((other, flags, vec![(payload.to_vec(), vec![])]));
                    continue;
                }
            }
            if flags & END_HEADERS != 0 {
                let headers = decoder.decode(&fragment).unwrap();
                blocks.push((first.0, first.1, headers));
            }
        }
        blocks
    }

    fn request(authority: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
        [
            (&b":method"[..], &b"POST"[..]),
            (b":scheme", b"http"),
            (b":path", b"/cuzk.v1.ProvingEngine/GetStatus"),
            (b":authority", authority),
            (b"content-type", b"application/grpc"),
            (b"te", b"trailers"),
        ]
        .iter()
        .map(|(n, v)| (n.to_vec(), v.to_vec()))
        .collect()
    }

    #[tokio::test]
    async fn path_authorities_become_localhost_and_the_rest_is_kept() {
        // The client's encoder indexes what it sends, so the second request refers to its
        // dynamic table: both must decode, through the rewrite, to the right headers.
        let mut encoder = loona_hpack::Encoder::new();
        let mut bytes = PREFACE.to_vec();
        bytes.extend(frame(0x4, 0, 0, &[])); // SETTINGS
        let path = b"%2Frun%2Fcuzk%2Fcuzk.sock";
        for (stream, authority) in [(1, &path[..]), (3, &path[..]), (5, b"localhost")] {
            let req = request(authority);
            let block = encoder.encode(req.iter().map(|(n, v)| (&n[..], &v[..])));
            // Split the block over HEADERS (padded, with priority) and a CONTINUATION.
            let (a, b) = block.split_at(block.len() / 2);
            let mut payload = vec![3u8];
            payload.extend_from_slice(&[0, 0, 0, 0, 16]);
            payload.extend_from_slice(a);
            payload.extend_from_slice(&[0, 0, 0]);
            bytes.extend(frame(HEADERS, PADDED | PRIORITY, stream, &payload));
            bytes.extend(frame(CONTINUATION, END_HEADERS, stream, b));
            bytes.extend(frame(0x0, END_STREAM, stream, b"\0\0\0\0\0"));
        }
        for step in [1, 7, 1 << 20] {
            let out = through(&bytes, step).await;
            let blocks = decode_blocks(&out);
            let headers: Vec<_> = blocks.iter().filter(|b| b.0 == HEADERS).collect();
            assert_eq!(headers.len(), 3, "step {step}");
            for (_, flags, h) in headers {
                assert_eq!(h, &request(b"localhost"), "step {step}");
                assert_eq!(flags & (PRIORITY | END_HEADERS), PRIORITY | END_HEADERS);
            }
            let data = blocks.iter().filter(|b| b.0 == 0).count();
            assert_eq!(data, 3, "DATA frames pass");
        }
    }

    /// Runs `client_bytes` through the fix and returns the error that ends the connection.
    async fn refused(client_bytes: &[u8]) -> String {
        let (mut client, server) = tokio::io::duplex(1 << 20);
        let mut fix = AuthorityFix::new(server);
        client.write_all(client_bytes).await.unwrap();
        drop(client);
        let mut out = Vec::new();
        let err = fix
            .read_to_end(&mut out)
            .await
            .expect_err("the connection ends");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        err.to_string()
    }

    #[tokio::test]
    async fn other_protocols_pass_and_protocol_errors_end_the_connection() {
        let text = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec();
        assert_eq!(through(&text, 3).await, text);
        let with_preface = |frames: &[Vec<u8>]| {
            let mut bytes = PREFACE.to_vec();
            frames.iter().for_each(|f| bytes.extend(f));
            bytes
        };
        // An incomplete frame at the end: h2 sees the end of the connection.
        let cut = with_preface(&[frame(0x0, 0, 1, b"abcdef")[..10].to_vec()]);
        assert_eq!(through(&cut, 4).await, PREFACE);

        let big_entry = {
            // A literal with incremental indexing, new name: a 4000-byte table entry.
            let mut b = vec![0x40];
            loona_hpack::encoder::encode_integer_into(3, 7, 0, &mut b).unwrap();
            b.extend(b"x-a");
            loona_hpack::encoder::encode_integer_into(4000, 7, 0, &mut b).unwrap();
            b.extend(vec![b'a'; 4000]);
            b
        };
        // Then 17 one-byte references to it: 68 KiB of headers from a 4 KiB block.
        let mut amplified = big_entry.clone();
        amplified.extend([0x80 | 62; 17]);
        for (what, bytes, says) in [
            (
                "an index past every table",
                with_preface(&[frame(HEADERS, END_HEADERS, 1, &[0xff, 0x7f])]),
                "does not decode",
            ),
            (
                "a table larger than the server allows",
                with_preface(&[frame(HEADERS, END_HEADERS, 1, &[0x3f, 0xe1, 0x7f, 0x82])]),
                "does not decode",
            ),
            (
                "one byte per 4 KiB of headers",
                with_preface(&[frame(HEADERS, END_HEADERS, 1, &amplified)]),
                "a header list of",
            ),
            (
                "a frame over the size limit",
                with_preface(&[frame(0x0, 0, 1, &vec![0; MAX_FRAME + 1])]),
                "over the 16384 allowed",
            ),
            (
                "a DATA frame inside a header block",
                with_preface(&[frame(HEADERS, 0, 1, &big_entry), frame(0x0, 0, 1, b"x")]),
                "a frame inside a header block",
            ),
            (
                "a CONTINUATION of nothing",
                with_preface(&[frame(CONTINUATION, END_HEADERS, 1, &big_entry)]),
                "outside a header block",
            ),
            (
                "padding longer than the frame",
                with_preface(&[frame(HEADERS, END_HEADERS | PADDED, 1, &[200, 1, 2])]),
                "padding does not fit",
            ),
        ] {
            let err = refused(&bytes).await;
            assert!(err.contains(says), "{what}: {err}");
        }
        // Blocks of CONTINUATIONs that grow past the limit are refused before they are decoded.
        let mut frames = vec![frame(HEADERS, 0, 1, &[0x00])];
        for _ in 0..5 {
            frames.push(frame(CONTINUATION, 0, 1, &vec![0x00; MAX_FRAME]));
        }
        let err = refused(&with_preface(&frames)).await;
        assert!(err.contains("a header block over"), "{err}");
    }

    #[test]
    fn large_blocks_are_split_into_continuations() {
        let big = vec![(b"x-big".to_vec(), vec![b'a'; 40_000])];
        let encoded = encode_literals(&big);
        let block = Block {
            stream_id: 9,
            end_stream: true,
            priority: None,
            fragment: vec![],
        };
        let mut out = PREFACE.to_vec();
        write_header_frames(&mut out, &block, &encoded);
        let blocks = decode_blocks(&out);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].1 & END_STREAM, END_STREAM);
        assert_eq!(blocks[0].2, big);
        let frames = (out.len() - 24).div_ceil(MAX_FRAME + 9);
        assert!(frames >= 3, "{frames} frames");
    }
}
