package recbid.baseline;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Every other path of the public listener: 404 not_found. */
final class NotFoundServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;

    NotFoundServlet(Api api) {
        super(api);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        write(resp, api.notFound());
    }
}
