package recbid.baseline;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The common answers of the public listener's servlets. Each servlet
 * overrides service() to see every method (a wrong one is answered 405 with
 * a JSON body, as the Go server does), and matches its path on the raw
 * request URI: Tomcat maps servlets on the decoded, normalized path, but the
 * Go router matches the path as sent, so "/dsp/%72ecbid" or
 * "/dsp/recbid;x" is a 404 on both.
 */
abstract class JsonServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    static final String JSON = "application/json";

    final transient Responses responses;

    JsonServlet(Responses responses) {
        this.responses = responses;
    }

    void writeJson(HttpServletResponse resp, int status, byte[] body) throws IOException {
        resp.setStatus(status);
        resp.setContentType(JSON);
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }

    void error(HttpServletResponse resp, int status, String code, String field, String message) throws IOException {
        writeJson(resp, status, responses.error(code, field, message));
    }

    void methodNotAllowed(HttpServletResponse resp, String allow) throws IOException {
        resp.setHeader("Allow", allow);
        error(resp, HttpServletResponse.SC_METHOD_NOT_ALLOWED, "method_not_allowed", "",
                "method not allowed; use " + allow);
    }

    /**
     * The exchange id a request's raw URI names under a servlet's base path
     * (/dsp/recbid, /dsp/win), as the Go router reads its two routes BASE
     * and BASE/{exchange}: the bare path is exchange "default"; BASE/ID
     * names ID, one non-empty path segment taken as sent, except "default",
     * which lives on the bare path only. Null for any other path (404).
     */
    static String exchangeOf(String uri, String base) {
        if (!uri.startsWith(base)) {
            return null;
        }
        if (uri.length() == base.length()) {
            return Exchange.DEFAULT_ID;
        }
        if (uri.charAt(base.length()) != '/') {
            return null;
        }
        String id = uri.substring(base.length() + 1);
        if (id.isEmpty() || id.indexOf('/') >= 0 || id.equals(Exchange.DEFAULT_ID)) {
            return null;
        }
        return id;
    }

    void notFound(HttpServletResponse resp) throws IOException {
        error(resp, HttpServletResponse.SC_NOT_FOUND, "not_found", "", "no such endpoint");
    }
}
