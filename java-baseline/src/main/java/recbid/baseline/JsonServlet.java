package recbid.baseline;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The Tomcat front end's servlets: thin adapters over {@link Api}. Each
 * servlet overrides service() to see every method (a wrong one is answered
 * 405 with a JSON body, as the Go server does); the core matches its path
 * on the raw request URI: Tomcat maps servlets on the decoded, normalized
 * path, but the Go router matches the path as sent, so "/dsp/%72ecbid" or
 * "/dsp/recbid;x" is a 404 on both.
 */
abstract class JsonServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private static final byte[] NO_QUERY = new byte[0];

    final transient Api api;

    JsonServlet(Api api) {
        this.api = api;
    }

    /** Writes an answer of the core: its status, its headers, and its JSON body with its length. */
    static void write(HttpServletResponse resp, Api.Answer a) throws IOException {
        resp.setStatus(a.status);
        for (int i = 0; i + 1 < a.headers.length; i += 2) {
            resp.setHeader(a.headers[i], a.headers[i + 1]);
        }
        if (a.body != null) {
            resp.setContentType(Api.JSON);
            resp.setContentLength(a.body.length);
            resp.getOutputStream().write(a.body);
        }
    }

    /** The request's head as the core reads it. */
    static Api.Head head(HttpServletRequest req) {
        return new Api.Head() {
            @Override
            public String method() {
                return req.getMethod();
            }

            @Override
            public String path() {
                return req.getRequestURI();
            }

            @Override
            public byte[] query() {
                String raw = req.getQueryString();
                return raw == null ? NO_QUERY : raw.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String header(String name) {
                return req.getHeader(name);
            }

            @Override
            public Iterable<String> forwardedFor() {
                return () -> req.getHeaders("X-Forwarded-For").asIterator();
            }

            @Override
            public String remoteAddr() {
                return req.getRemoteAddr();
            }

            @Override
            public long contentLength() {
                return req.getContentLengthLong();
            }
        };
    }
}
