package recbid.baseline;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * GET /dsp/win[/EXCHANGE]?bidid=…&amp;price=…, an exchange's win notice, on
 * Tomcat: {@link Api#win} answers it (in the contract's order of checks)
 * from the head alone.
 */
final class WinServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;

    static final String PATH = Api.WIN_PATH;

    WinServlet(Api api) {
        super(api);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        write(resp, api.win(head(req)));
    }
}
