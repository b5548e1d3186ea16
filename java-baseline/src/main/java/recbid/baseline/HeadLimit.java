package recbid.baseline;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ByteProcessor;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;

/**
 * Holds each request's head (the request line, the header lines and the
 * blank line after them) to {@link #LIMIT} bytes exactly, as dspd's front
 * ends do (internal/conntest's HeaderLimitIsExact): Netty's decoder bounds
 * the request line and the headers each on their own. It sits before
 * HttpServerCodec and counts the bytes of a head until its blank line; one
 * over the limit is answered 431, written past the codec (whose encoder
 * pairs answers with decoded requests), and the connection closed. After
 * the head it lets the bytes through uncounted until the codec has seen the
 * request's end ({@link End}, after the codec, says so). As on net/http, a
 * head pipelined in the same read as the end of the request before it is
 * not counted.
 */
final class HeadLimit extends ChannelInboundHandlerAdapter {
    static final int LIMIT = 16 << 10;

    private static final byte[] TOO_LARGE = ("HTTP/1.1 431 Request Header Fields Too Large\r\n"
            + "Content-Type: text/plain\r\nConnection: close\r\nContent-Length: 35\r\n\r\n"
            + "431 Request Header Fields Too Large").getBytes(StandardCharsets.US_ASCII);

    private boolean inHead = true;
    private int count;     // bytes of the head so far
    private byte p1, p2;   // the last two bytes counted
    private boolean refused;

    /** Counts one byte of a head; false at its blank line or past the limit, where the scan stops. */
    private final ByteProcessor counter = c -> {
        if (++count > LIMIT) { // the blank line's bytes count too
            refused = true;
            return false;
        }
        // The blank line: CRLF CRLF, or a bare LF where the decoder takes one.
        if (c == '\n' && (p1 == '\n' || p1 == '\r' && p2 == '\n')) {
            inHead = false;
            return false;
        }
        p2 = p1;
        p1 = c;
        return true;
    };

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (inHead && msg instanceof ByteBuf) {
            ByteBuf b = (ByteBuf) msg;
            b.forEachByte(counter);
            if (refused) {
                b.release();
                ctx.writeAndFlush(Unpooled.wrappedBuffer(TOO_LARGE)).addListener(ChannelFutureListener.CLOSE);
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** The codec decoded a request's end: the next bytes start the next head. */
    void requestEnded() {
        inHead = true;
        count = 0;
        p1 = 0;
        p2 = 0;
    }

    /** Placed after the codec, it tells a HeadLimit where each request ends. */
    static final class End extends ChannelInboundHandlerAdapter {
        private final HeadLimit limit;

        End(HeadLimit limit) {
            this.limit = limit;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof LastHttpContent) {
                limit.requestEnded();
            }
            ctx.fireChannelRead(msg);
        }
    }
}
