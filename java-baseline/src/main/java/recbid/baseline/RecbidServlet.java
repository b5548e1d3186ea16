package recbid.baseline;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;

/**
 * POST /dsp/recbid[/EXCHANGE] on Tomcat: {@link Api#recbid} checks the head
 * (the path's exchange, method, the exchange's admission, content type, a
 * declared size over the limit); when it needs the body, the servlet reads
 * it, at most one byte more than allowed, and {@link Api#finish} answers.
 */
final class RecbidServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;

    static final String PATH = Api.RECBID_PATH;

    RecbidServlet(Api api) {
        super(api);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Api.Step step = api.recbid(head(req));
        write(resp, step instanceof Api.NeedsBody call ? withBody(req, call) : (Api.Answer) step);
    }

    private Api.Answer withBody(HttpServletRequest req, Api.NeedsBody call) throws IOException {
        byte[] body;
        try (InputStream in = req.getInputStream()) {
            // A chunked body is read up to one byte more than allowed, which tells an oversized one.
            body = in.readNBytes(call.declared >= 0 ? (int) call.declared : Api.MAX_BODY_BYTES + 1);
        } catch (IOException e) {
            body = null;
        }
        if (body == null || body.length < call.declared) {
            // The client went away or sent a broken body: answer what we can.
            // (When the read itself failed, Tomcat has already chosen its own
            // 400 page, and what is written here is dropped.)
            return api.badBody();
        }
        return api.finish(call, body, body.length);
    }
}
