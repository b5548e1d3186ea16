package recbid.baseline;

/**
 * The Content-Type rule of POST /dsp/recbid (docs/protocol.md):
 * application/x-www-form-urlencoded in any case, alone or followed by
 * parameters "; name=value" whose names are all charset (any case, any
 * value). Spaces and tabs around the parts are allowed, and so is a
 * trailing ';'.
 */
final class MediaTypes {
    private MediaTypes() {}

    static final String FORM = "application/x-www-form-urlencoded";

    static boolean isForm(String ct) {
        if (ct == null) {
            return false;
        }
        String[] parts = ct.split(";", -1);
        if (!ows(parts[0]).equalsIgnoreCase(FORM)) {
            return false;
        }
        for (int i = 1; i < parts.length; i++) {
            String p = ows(parts[i]);
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq < 0 || !ows(p.substring(0, eq)).equalsIgnoreCase("charset")) {
                return false;
            }
        }
        return true;
    }

    /** Trims HTTP's optional whitespace: spaces and tabs. */
    private static String ows(String s) {
        int b = 0;
        int e = s.length();
        while (b < e && (s.charAt(b) == ' ' || s.charAt(b) == '\t')) {
            b++;
        }
        while (e > b && (s.charAt(e - 1) == ' ' || s.charAt(e - 1) == '\t')) {
            e--;
        }
        return s.substring(b, e);
    }
}
