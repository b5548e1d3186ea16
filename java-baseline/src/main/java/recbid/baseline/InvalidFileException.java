package recbid.baseline;

import java.util.List;

/**
 * A campaigns or exchanges file is rejected whole; the message names every
 * problem, one per line, with the Go server's words.
 */
final class InvalidFileException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient List<String> problems;

    InvalidFileException(List<String> problems) {
        super(problems.size() + " problem(s):\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    List<String> problems() {
        return problems;
    }
}
