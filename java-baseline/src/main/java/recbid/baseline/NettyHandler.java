package recbid.baseline;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The Netty front end's request handler, one per connection, after
 * HttpServerCodec: a thin adapter over {@link Api}, which it runs on the
 * event loop (the core is CPU-only and in memory: nothing here blocks).
 * Before the core, it refuses in plain text, and closes, what Netty's
 * decoder could not read (400, 414 for a request line over 16 KiB, 431 for
 * headers over 16 KiB) and what Go and Tomcat refuse but Netty 4.1's
 * lenient decoder lets through (a version other than HTTP/1.x, a control
 * character in the request target, an HTTP/1.1 request without exactly
 * one Host).
 *
 * <p>It aggregates bodies itself, bounded, instead of HttpObjectAggregator,
 * whose own 413 (empty, and before anything else) would break the
 * contract's order of checks: method, admission and content type come
 * before the size. So the head is checked first ({@link Api#route}); an
 * answer that needs no body is written at once and the body, if any, is
 * read and dropped (up to {@link #DRAIN_LIMIT}, as Go drains an unread
 * body; past that the connection is closed); a bid request's body is
 * gathered up to {@link Api#MAX_BODY_BYTES} (a chunked one that grows past
 * it is dropped and answered 413) and answered with {@link Api#finish}.
 * The answer to an unwanted chunked body is held until the body ends or
 * passes DRAIN_LIMIT, as Go holds it, so that it can say whether the
 * connection stays. A
 * body that comes whole in one piece, the usual case, is never copied into
 * a buffer of its own.
 *
 * <p>Answers are written without a flush; the flush comes once per read,
 * in channelReadComplete, so that pipelined requests read together go out
 * in one write. Each carries its Content-Length (none on a 204), a Date,
 * and Connection: close when the connection closes after it (the request
 * asked to, a drain, an HTTP-level error). Keep-alive is kept here rather
 * than by HttpServerKeepAliveHandler, which closes a connection the moment
 * its last answer is written: with a request body still arriving that
 * close is a reset, which can destroy the answer; this handler closes such
 * a connection lingering, as Go does. A client that stops reading its
 * answers stops being read (auto-read follows writability).
 */
final class NettyHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = Logger.getLogger(NettyHandler.class.getName());

    /** The user event a drain sends every connection: close when idle, else after the answer in progress. */
    static final Object DRAIN = new Object();

    /** Most bytes of an unwanted body read and dropped to keep the connection; Go's net/http drains 256 KiB. */
    static final int DRAIN_LIMIT = 256 << 10;

    /** How long a lingering close reads and drops what the client still sends; Go waits 500 ms. */
    private static final long LINGER_MILLIS = 500;

    // Header names as Go and Tomcat write them (Netty's HttpHeaderNames are lower case).
    private static final AsciiString CONTENT_TYPE = AsciiString.cached("Content-Type");
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("Content-Length");
    private static final AsciiString DATE = AsciiString.cached("Date");
    private static final AsciiString CONNECTION = AsciiString.cached("Connection");
    private static final AsciiString HOST = AsciiString.cached("Host");
    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("X-Forwarded-For");
    private static final AsciiString APPLICATION_JSON = AsciiString.cached(Api.JSON);
    private static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain; charset=utf-8");
    private static final byte[] NO_QUERY = new byte[0];

    /** Where a whole body is decoded, in place: one per event loop (the core runs to completion on it). */
    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[Api.MAX_BODY_BYTES];
        }
    };

    private enum State {
        /** Between requests. */
        IDLE,
        /** Gathering a bid request's body. */
        BODY,
        /** The request is answered; the rest of its body is read and dropped. */
        DISCARD,
        /** The connection closes after the last answer; nothing more is read. */
        CLOSING
    }

    private final Api api;
    private final ReadDeadline deadline;
    private final AtomicBoolean draining;

    private State state = State.IDLE;
    private Api.NeedsBody call; // in BODY
    private ByteBuf body; // in BODY, when the body comes in several pieces
    private long dropped; // in DISCARD: bytes of body dropped
    private Api.Answer pending; // in DISCARD: the answer held until a body of unknown length ends
    private boolean closeAfter; // the request asked to close (Connection: close, HTTP/1.0)
    private boolean keepAlive10; // an HTTP/1.0 request asked to keep the connection
    private ChannelFuture lastWrite;

    NettyHandler(Api api, ReadDeadline deadline, AtomicBoolean draining) {
        this.api = api;
        this.deadline = deadline;
        this.draining = draining;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (draining.get()) {
            ctx.close(); // accepted while the server stops
            return;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpRequest req) {
                head(ctx, req);
            }
            if (msg instanceof HttpContent c) {
                content(ctx, c);
            }
        } catch (JsonProcessingException | RuntimeException e) {
            // Nothing a client sends gets here; a bug does: answered 500, as Tomcat would.
            LOG.log(Level.WARNING, "request failed", e);
            releaseBody();
            plain(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush(); // the answers of everything this read brought, in one write
        ctx.fireChannelReadComplete();
    }

    private void head(ChannelHandlerContext ctx, HttpRequest req) throws JsonProcessingException {
        if (state == State.CLOSING || !ctx.channel().isActive()) {
            return;
        }
        if (state != State.IDLE) { // a head before the last one's end: the decoder does not do that
            releaseBody();
            plain(ctx, HttpResponseStatus.BAD_REQUEST);
            return;
        }
        deadline.requestStarted();
        DecoderResult decoded = req.decoderResult();
        if (decoded.isFailure()) {
            plain(ctx, failureStatus(decoded.cause()));
            return;
        }
        // Netty 4.1's decoder takes any NAME/MAJOR.MINOR for a version; Go and Tomcat refuse all but HTTP/1.x.
        HttpVersion version = req.protocolVersion();
        if (!"HTTP".equals(version.protocolName())) {
            plain(ctx, HttpResponseStatus.BAD_REQUEST);
            return;
        }
        if (version.majorVersion() != 1) {
            plain(ctx, HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED);
            return;
        }
        // What Go's net/http and Tomcat refuse and Netty's lenient decoder lets through:
        // a control character in the request target, an HTTP/1.1 request without
        // exactly one Host (RFC 9112, section 3.2), an HTTP/1.0 one with several.
        if (hasControl(req.uri()) || !hostValid(req.headers(), version.minorVersion() >= 1)) {
            plain(ctx, HttpResponseStatus.BAD_REQUEST);
            return;
        }
        closeAfter = !HttpUtil.isKeepAlive(req);
        keepAlive10 = !closeAfter && version.minorVersion() == 0;
        // OPTIONS * asks about the server itself, answered as Go and Tomcat answer
        // it; like any answer from the head, it keeps the connection's state rules.
        Api.Step step = req.method().equals(HttpMethod.OPTIONS) && req.uri().equals("*")
                ? OPTIONS_ANY : api.route(new Head(req, ctx.channel()));
        if (step instanceof Api.NeedsBody needs) {
            call = needs;
            state = State.BODY;
            if (HttpUtil.is100ContinueExpected(req)) {
                writeContinue(ctx);
            }
            return;
        }
        // Answered from the head. The body, if one follows, is not wanted: a client
        // waiting for 100 Continue may never send it, and a large one is not worth
        // reading, so the connection closes after the answer; else the body is dropped.
        long length = HttpUtil.isTransferEncodingChunked(req) ? -1 : HttpUtil.getContentLength(req, 0L);
        boolean expect = HttpUtil.is100ContinueExpected(req);
        if (length < 0 && !expect) { // chunked: how much follows is known only at its end
            hold((Api.Answer) step, 0);
            return;
        }
        boolean close = length != 0 && (expect || length > DRAIN_LIMIT);
        respond(ctx, (Api.Answer) step, close, length != 0);
        if (state != State.CLOSING) {
            state = State.DISCARD;
            dropped = 0;
        }
    }

    /**
     * Holds the answer to a request whose chunked body is not wanted, and
     * drops the body: the answer goes out when the body ends (keeping the
     * connection) or passes DRAIN_LIMIT (with Connection: close), as Go's
     * net/http does. Answered at once, it could only promise to keep a
     * connection that may have to close, and a client that reused it would
     * lose its next request.
     */
    private void hold(Api.Answer a, long have) {
        pending = a;
        state = State.DISCARD;
        dropped = have;
    }

    /** Writes the held answer, if any, closing after it when close. */
    private boolean release(ChannelHandlerContext ctx, boolean close) {
        Api.Answer a = pending;
        if (a == null) {
            return false;
        }
        pending = null;
        respond(ctx, a, close, close);
        if (close) {
            ctx.flush();
        }
        return true;
    }

    private void content(ChannelHandlerContext ctx, HttpContent c) throws JsonProcessingException {
        boolean last = c instanceof LastHttpContent;
        switch (state) {
            case BODY -> {
                if (c.decoderResult().isFailure()) { // a malformed chunk
                    releaseBody();
                    respond(ctx, api.badBody(), true, true);
                    return;
                }
                ByteBuf part = c.content();
                int have = body == null ? 0 : body.readableBytes();
                if (have + part.readableBytes() > Api.MAX_BODY_BYTES) { // chunked, past the limit
                    releaseBody();
                    hold(api.tooLarge(), have);
                    discard(ctx, part.readableBytes(), last);
                    return;
                }
                if (!last) {
                    if (body == null) {
                        long declared = call.declared;
                        int initial = declared > 0 ? (int) declared : Math.max(part.readableBytes() * 2, 1024);
                        body = ctx.alloc().heapBuffer(Math.min(initial, Api.MAX_BODY_BYTES), Api.MAX_BODY_BYTES);
                    }
                    body.writeBytes(part);
                    return;
                }
                Api.Answer answer;
                if (body == null) {
                    answer = finish(part); // the whole body in one piece
                } else {
                    body.writeBytes(part);
                    try {
                        answer = finish(body);
                    } finally {
                        releaseBody();
                    }
                }
                call = null;
                state = State.IDLE;
                deadline.requestRead();
                respond(ctx, answer, false, false);
            }
            case DISCARD -> {
                if (c.decoderResult().isFailure()) {
                    if (!release(ctx, true)) {
                        closeAfterWrites(ctx, true);
                    }
                    return;
                }
                discard(ctx, c.content().readableBytes(), last);
            }
            case IDLE, CLOSING -> {
                // nothing expected (IDLE), or nothing more read (CLOSING)
            }
        }
    }

    /** Drops n bytes of an unwanted body; its last piece ends the request. */
    private void discard(ChannelHandlerContext ctx, int n, boolean last) {
        dropped += n;
        if (last) {
            state = State.IDLE;
            deadline.requestRead();
            if (release(ctx, false)) {
                return; // says Connection: close itself when draining
            }
            if (draining.get()) { // the answer went out before the drain began
                closeAfterWrites(ctx, false);
            }
        } else if (dropped > DRAIN_LIMIT && !release(ctx, true)) {
            closeAfterWrites(ctx, true);
        }
    }

    private Api.Answer finish(ByteBuf whole) throws JsonProcessingException {
        int n = whole.readableBytes();
        byte[] scratch = SCRATCH.get();
        whole.getBytes(whole.readerIndex(), scratch, 0, n);
        return api.finish(call, scratch, n);
    }

    private void releaseBody() {
        if (body != null) {
            body.release();
            body = null;
        }
        call = null;
    }

    /**
     * Writes an answer of the core (not flushed: channelReadComplete
     * flushes). With close, or when the request asked for it or the server
     * drains, it says Connection: close and the connection closes once it
     * is written; unread: the request's body may still be arriving.
     */
    private void respond(ChannelHandlerContext ctx, Api.Answer a, boolean close, boolean unread) {
        ByteBuf content = a.body == null ? Unpooled.EMPTY_BUFFER
                : ctx.alloc().ioBuffer(a.body.length).writeBytes(a.body);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(a.status),
                content, false);
        HttpHeaders h = r.headers();
        h.set(DATE, HttpDate.now());
        for (int i = 0; i + 1 < a.headers.length; i += 2) {
            h.set(a.headers[i], a.headers[i + 1]);
        }
        if (a.body != null) {
            h.set(CONTENT_TYPE, APPLICATION_JSON);
        }
        if (a.status != 204) {
            h.setInt(CONTENT_LENGTH, content.readableBytes());
        }
        write(ctx, r, close, unread);
    }

    /**
     * An HTTP-level refusal, before the core: Netty's decoder failed (a
     * malformed request, a request line or headers over their limit), or a
     * bug. Answered as Go's net/http answers these, in plain text, and the
     * connection is closed: the decoder reads nothing more of it.
     */
    private void plain(ChannelHandlerContext ctx, HttpResponseStatus status) {
        if (state == State.CLOSING || !ctx.channel().isActive()) {
            return;
        }
        byte[] text = (status.code() + " " + status.reasonPhrase()).getBytes(StandardCharsets.US_ASCII);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                ctx.alloc().ioBuffer(text.length).writeBytes(text), false);
        r.headers().set(DATE, HttpDate.now())
                .set(CONTENT_TYPE, TEXT_PLAIN)
                .setInt(CONTENT_LENGTH, text.length);
        write(ctx, r, true, true);
    }

    /**
     * Writes a response, and the keep-alive rules: HTTP/1.1 keeps the
     * connection unless the request said Connection: close; HTTP/1.0 only
     * when it said Connection: keep-alive, which the answer repeats. A
     * connection that closes says Connection: close, reads no more
     * requests, and closes once the answer is written, at once when the
     * request was read whole, else lingering (see {@link #LINGER}).
     */
    private void write(ChannelHandlerContext ctx, FullHttpResponse r, boolean close, boolean unread) {
        boolean closing = close || closeAfter || draining.get();
        if (closing) {
            r.headers().set(CONNECTION, HttpHeaderValues.CLOSE);
        } else if (keepAlive10) {
            r.headers().set(CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        lastWrite = ctx.write(r);
        if (closing) {
            state = State.CLOSING;
            deadline.requestRead();
            lastWrite.addListener(unread ? LINGER : ChannelFutureListener.CLOSE);
        }
    }

    /**
     * Closes a connection whose client may still be sending (a body not
     * read, a request refused from its head) as Go's net/http does: first
     * only our side (FIN, after the answer), then, after a while of reading
     * and dropping what still comes, or as soon as the client closes, the
     * whole connection. Closed at once, the unread bytes would make the
     * kernel reset the connection, and a reset can destroy the answer in
     * the client's buffers before it reads it.
     */
    private static final ChannelFutureListener LINGER = written -> {
        Channel ch = written.channel();
        if (!written.isSuccess() || !ch.isActive() || !(ch instanceof DuplexChannel duplex)) {
            ch.close();
            return;
        }
        duplex.shutdownOutput().addListener(
                shut -> ch.eventLoop().schedule(() -> ch.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS));
    };

    /**
     * 100 Continue, for a bid request that needs its body. It is written past
     * HttpServerCodec: Netty 4.1.48's encoder pairs every response it encodes,
     * interim ones included, with a request's method (to know a HEAD's answer
     * has no body), so an encoded 100 would pair the next answer with the
     * wrong request.
     */
    private static void writeContinue(ChannelHandlerContext ctx) {
        ChannelHandlerContext codec = ctx.pipeline().context(NettyServer.CODEC);
        codec.writeAndFlush(Unpooled.wrappedBuffer(CONTINUE));
    }

    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** Closes once what was written is out, lingering while the client may still be sending. */
    private void closeAfterWrites(ChannelHandlerContext ctx, boolean linger) {
        state = State.CLOSING;
        deadline.requestRead();
        ctx.flush();
        ChannelFutureListener close = linger ? LINGER : ChannelFutureListener.CLOSE;
        (lastWrite == null ? ctx.newSucceededFuture() : lastWrite).addListener(close);
    }

    /** OPTIONS *: 200, no body. */
    private static final Api.Answer OPTIONS_ANY = new Api.Answer(200, null);

    private static boolean hasControl(String target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return true;
            }
        }
        return false;
    }

    private static boolean hostValid(HttpHeaders headers, boolean required) {
        Iterator<? extends CharSequence> hosts = headers.valueCharSequenceIterator(HOST);
        if (!hosts.hasNext()) {
            return !required;
        }
        hosts.next();
        return !hosts.hasNext();
    }

    /**
     * The status of a request Netty's decoder refused: 414 for a request
     * line over its limit, 431 for headers over theirs (Netty 4.1.48 tells
     * them apart only by the message of its TooLongFrameException), 400
     * for anything else (a bad version, a malformed header or
     * Content-Length).
     */
    private static HttpResponseStatus failureStatus(Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            String m = String.valueOf(cause.getMessage());
            if (m.startsWith("An HTTP line")) {
                return HttpResponseStatus.REQUEST_URI_TOO_LONG;
            }
            if (m.startsWith("HTTP header")) {
                return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
            }
        }
        return HttpResponseStatus.BAD_REQUEST;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws JsonProcessingException {
        if (evt instanceof IdleStateEvent) { // 60 s without a read or a write: a keep-alive connection idle
            ctx.close();
            return;
        }
        if (evt == ReadDeadline.EXPIRED) {
            // A request not read whole in time. As in Go: a body cut short by the deadline
            // is answered bad_body; a head never finished gets no answer.
            if (state == State.BODY) {
                releaseBody();
                respond(ctx, api.badBody(), true, true);
                ctx.flush();
            } else if (!release(ctx, true)) { // a held answer goes out, and the connection closes
                ctx.close();
            }
            return;
        }
        if (evt == DRAIN) {
            if (state == State.IDLE && !deadline.isReading()) {
                closeAfterWrites(ctx, false);
            } // else the answer in progress says Connection: close, or (its body being
              // dropped) the connection closes when the request ends

            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // A client that does not read its answers is not read either, until it catches up.
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseBody();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof IOException)) { // a reset connection is routine; anything else is logged
            LOG.log(Level.WARNING, "connection failed", cause);
        }
        releaseBody();
        ctx.close();
    }

    /** A request's head as the core reads it: the raw request target split at '?'. */
    private static final class Head implements Api.Head {
        private final HttpRequest req;
        private final Channel channel;
        private final String path;
        private final String query;

        Head(HttpRequest req, Channel channel) {
            this.req = req;
            this.channel = channel;
            String uri = req.uri();
            int from = 0;
            if (!uri.startsWith("/")) { // absolute form, scheme://authority/path: its path
                int scheme = uri.indexOf("://");
                int slash = scheme < 0 ? -1 : uri.indexOf('/', scheme + 3);
                from = slash < 0 ? uri.length() : slash;
            }
            int q = uri.indexOf('?', from);
            this.path = q < 0 ? uri.substring(from) : uri.substring(from, q);
            this.query = q < 0 ? null : uri.substring(q + 1);
        }

        @Override
        public String method() {
            return req.method().name();
        }

        @Override
        public String path() {
            return path;
        }

        @Override
        public byte[] query() {
            // The decoder reads the request line one char per byte: these are the bytes sent.
            return query == null ? NO_QUERY : query.getBytes(StandardCharsets.ISO_8859_1);
        }

        @Override
        public String header(String name) {
            return req.headers().get(name);
        }

        @Override
        public Iterable<String> forwardedFor() {
            return () -> req.headers().getAll(X_FORWARDED_FOR).iterator();
        }

        @Override
        public String remoteAddr() {
            SocketAddress a = channel.remoteAddress();
            return a instanceof InetSocketAddress i && i.getAddress() != null ? i.getAddress().getHostAddress() : "";
        }

        @Override
        public long contentLength() {
            return HttpUtil.isTransferEncodingChunked(req) ? -1 : HttpUtil.getContentLength(req, -1L);
        }
    }

    /**
     * The Date header's value, IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"),
     * formatted once a second. (Netty 4.1.48's DateFormatter writes the day
     * of the month without its leading zero.)
     */
    private static final class HttpDate {
        private static final DateTimeFormatter IMF_FIXDATE =
                DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
        private static volatile HttpDate current = new HttpDate(0);

        private final long second;
        private final AsciiString text;

        private HttpDate(long second) {
            this.second = second;
            this.text = new AsciiString(IMF_FIXDATE.format(Instant.ofEpochSecond(second)));
        }

        static AsciiString now() {
            long second = System.currentTimeMillis() / 1000;
            HttpDate d = current;
            if (d.second != second) {
                d = new HttpDate(second);
                current = d;
            }
            return d.text;
        }
    }
}
