package dev.inferd.engine.chat.jinja;

/**
 * A template could not be parsed or rendered. {@link #line()} is the 1-based template line the
 * problem was found on, or 0 when it is not known (yet: the interpreter fills it in as the
 * exception passes the statement that caused it).
 */
public class TemplateException extends RuntimeException {
    private final String reason;
    private final int line;

    public TemplateException(String reason) {
        this(reason, 0, null);
    }

    public TemplateException(String reason, int line) {
        this(reason, line, null);
    }

    public TemplateException(String reason, int line, Throwable cause) {
        super(line > 0 ? "template line " + line + ": " + reason : reason, cause);
        this.reason = reason;
        this.line = line;
    }

    /** The problem without the line prefix. */
    public String reason() {
        return reason;
    }

    public int line() {
        return line;
    }

    /** This exception with its line filled in, when it has none yet. */
    TemplateException atLine(int line) {
        return this.line > 0 || line <= 0 ? this : new TemplateException(reason, line, getCause());
    }
}
