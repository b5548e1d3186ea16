package recbid.baseline;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.Version;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Netty front end (-http netty): Netty 4.1 over the same {@link Api} as
 * Tomcat, written as a Netty server is written for speed, and held to the
 * same limits as the other two servers (README.md explains each setting):
 * <ul>
 * <li>the native epoll transport when {@link Epoll#isAvailable()}, else NIO
 *     (Debian's libnetty-java ships epoll's classes without its JNI
 *     library, so there it is NIO);
 * <li>-event-loops N event-loop threads (default: the available
 *     processors), one group that both accepts and serves, so N is the
 *     whole count of threads doing I/O and requests;
 * <li>pooled buffers (PooledByteBufAllocator) for the listener and the
 *     connections; TCP_NODELAY (as Go and Tomcat); a listen backlog of
 *     4096 (Go's somaxconn, Tomcat's acceptCount); write-buffer water marks
 *     32/64 KiB, past which a connection is not read until its client reads;
 * <li>per connection: {@link ReadDeadline} (a request whole within 5 s of
 *     its first byte, Go's ReadTimeout), IdleStateHandler (60 s without a
 *     read or write closes, Go's IdleTimeout and Tomcat's keepAliveTimeout),
 *     HttpServerCodec (request line up to 16 KiB, headers up to 16 KiB: over
 *     them 414 and 431), and {@link NettyHandler}, which runs the core on
 *     the event loop (it is CPU-only and in memory, never blocks), bounds
 *     bodies itself and keeps the connection alive or closes it.
 * </ul>
 * Stopping closes the listener, closes the idle connections, lets those
 * with a request in flight answer it (with Connection: close), waits for
 * them up to 10 s, and shuts the event loops down gracefully.
 */
final class NettyServer implements FrontEnd {
    /** The codec's name in each pipeline (NettyHandler writes 100 Continue past it). */
    static final String CODEC = "http";

    static final int MAX_INITIAL_LINE = 16 << 10;
    static final int MAX_HEADER_SIZE = 16 << 10;
    static final int MAX_CHUNK_SIZE = 8 << 10;
    static final int READ_TIMEOUT_SECONDS = 5;
    static final int IDLE_TIMEOUT_SECONDS = 60;
    private static final int DRAIN_SECONDS = 10;

    private final EventLoopGroup group;
    private final Channel listener;
    private final ChannelGroup connections;
    private final AtomicBoolean draining;
    private final int eventLoops;
    private final String transport;

    private NettyServer(EventLoopGroup group, Channel listener, ChannelGroup connections, AtomicBoolean draining,
            int eventLoops, String transport) {
        this.group = group;
        this.listener = listener;
        this.connections = connections;
        this.draining = draining;
        this.eventLoops = eventLoops;
        this.transport = transport;
    }

    static NettyServer start(Options o, Api api) throws StartException {
        InetSocketAddress addr;
        try {
            addr = o.host.isEmpty() ? new InetSocketAddress(o.port)
                    : new InetSocketAddress(InetAddress.getByName(o.host), o.port);
        } catch (UnknownHostException e) {
            throw new StartException("cannot listen on " + o.addr + ": " + e.getMessage());
        }
        boolean epoll = Epoll.isAvailable();
        DefaultThreadFactory threads = new DefaultThreadFactory("netty-loop", false);
        EventLoopGroup group = epoll ? new EpollEventLoopGroup(o.eventLoops, threads)
                : new NioEventLoopGroup(o.eventLoops, threads);
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class
                : NioServerSocketChannel.class;
        ChannelGroup connections = new DefaultChannelGroup("connections", GlobalEventExecutor.INSTANCE);
        AtomicBoolean draining = new AtomicBoolean();

        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(channel)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 << 10, 64 << 10))
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connections.add(ch);
                        ReadDeadline deadline = new ReadDeadline(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                        ChannelPipeline p = ch.pipeline();
                        p.addLast("read-deadline", deadline);
                        p.addLast("idle", new IdleStateHandler(0, 0, IDLE_TIMEOUT_SECONDS, TimeUnit.SECONDS));
                        HeadLimit head = new HeadLimit();
                        p.addLast("head-limit", head);
                        p.addLast(CODEC, new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_SIZE, MAX_CHUNK_SIZE));
                        p.addLast("head-end", new HeadLimit.End(head));
                        p.addLast("api", new NettyHandler(api, deadline, draining));
                    }
                });
        ChannelFuture bound = b.bind(addr).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly();
            throw new StartException("cannot listen on " + o.addr + ": " + bound.cause());
        }
        Version common = Version.identify().get("netty-common");
        String version = common == null ? "" : " " + common.artifactVersion();
        String transport = "netty" + version + (epoll ? " epoll" : " nio (native epoll unavailable)");
        return new NettyServer(group, bound.channel(), connections, draining, o.eventLoops, transport);
    }

    @Override
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public String describe() {
        return transport + ", event-loops " + eventLoops;
    }

    @Override
    public void await() throws InterruptedException {
        group.terminationFuture().await();
    }

    @Override
    public void stop() throws InterruptedException {
        draining.set(true);
        listener.close().awaitUninterruptibly(); // no new connections
        for (Channel ch : connections) {
            ch.pipeline().fireUserEventTriggered(NettyHandler.DRAIN); // on its event loop
        }
        if (!connections.newCloseFuture().await(DRAIN_SECONDS, TimeUnit.SECONDS)) {
            connections.close().awaitUninterruptibly();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await();
    }
}
