package recbid.baseline;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Netty front end's read timeout for slow clients, Go's ReadTimeout: a
 * request must arrive whole (request line, headers and body) within the
 * timeout of its first byte, else {@link #EXPIRED} is fired down the
 * pipeline, and NettyHandler closes the connection (answering a bid request
 * whose body is cut short bad_body, as Go does). It sits before the HTTP decoder, so it sees the first bytes of a
 * request before the decoder has a head to show; {@link NettyHandler}
 * tells it when a request has been read. Between requests it is off: the
 * idle timeout (IdleStateHandler, 60 s) governs a keep-alive connection.
 *
 * <p>The check is lazy, as IdleStateHandler's: one timer per connection at
 * most, which, when it fires, either finds the request in progress too old
 * (close), or re-arms for what is left of the current request's time, or
 * lapses when no request is being read; so a busy keep-alive connection
 * schedules about one timer per timeout period, not one per request. Used
 * on the channel's event loop only.
 */
final class ReadDeadline extends ChannelInboundHandlerAdapter implements Runnable {
    /** The user event of a request not read whole within the timeout. */
    static final Object EXPIRED = new Object();

    private final long timeoutNanos;
    private ChannelHandlerContext ctx;
    private boolean reading; // a request has begun and is not read whole yet
    private long startedNanos; // when it began
    private ScheduledFuture<?> timer;

    ReadDeadline(long timeout, TimeUnit unit) {
        this.timeoutNanos = unit.toNanos(timeout);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        requestStarted(); // bytes of a request: the first ones start its clock
        ctx.fireChannelRead(msg);
    }

    /** A request has begun (its first bytes, or its head when it came right after another). */
    void requestStarted() {
        if (reading) {
            return;
        }
        reading = true;
        startedNanos = System.nanoTime();
        if (timer == null) {
            timer = ctx.executor().schedule(this, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The request has been read whole (its answer need not be written yet). */
    void requestRead() {
        reading = false;
    }

    /** Whether a request is being read: bytes of it have arrived, not all of it. */
    boolean isReading() {
        return reading;
    }

    @Override
    public void run() {
        timer = null;
        if (!reading || !ctx.channel().isActive()) {
            return; // lapses; the next request arms it again
        }
        long left = startedNanos + timeoutNanos - System.nanoTime();
        if (left <= 0) {
            reading = false;
            ctx.fireUserEventTriggered(EXPIRED); // NettyHandler answers or closes
            return;
        }
        timer = ctx.executor().schedule(this, left, TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        reading = false;
    }
}
