package dev.inferd.engine.grammar.json;

/**
 * A JSON Schema that cannot be enforced exactly: a keyword (or a value of it) that the compiler does
 * not support, or a malformed or unsatisfiable schema. Names the keyword and its location as a JSON
 * pointer into the schema (e.g. {@code /properties/tags/uniqueItems}), so the server can answer 400
 * with both; the compiler never falls back to unconstrained output.
 */
public final class UnsupportedSchemaException extends IllegalArgumentException {
    private final String keyword;
    private final String pointer;

    public UnsupportedSchemaException(String keyword, String pointer, String reason) {
        super("JSON Schema keyword '" + keyword + "' at " + (pointer.isEmpty() ? "/" : pointer) + ": " + reason);
        this.keyword = keyword;
        this.pointer = pointer;
    }

    /** The keyword, e.g. {@code uniqueItems}. */
    public String keyword() {
        return keyword;
    }

    /** The keyword's location in the schema as a JSON pointer (RFC 6901), e.g. {@code /properties/tags/uniqueItems}. */
    public String pointer() {
        return pointer;
    }
}
