package dev.inferd.engine.chat.jinja;

/** One lexical token; {@code value} is the decoded literal for strings and numbers. */
record Token(Kind kind, String text, Object value, int line) {

    enum Kind {
        TEXT, VARIABLE_BEGIN, VARIABLE_END, BLOCK_BEGIN, BLOCK_END, NAME, STRING, INTEGER, FLOAT, OPERATOR, EOF
    }

    boolean is(Kind kind, String text) {
        return this.kind == kind && this.text.equals(text);
    }

    boolean isOperator(String op) {
        return is(Kind.OPERATOR, op);
    }

    boolean isName(String name) {
        return is(Kind.NAME, name);
    }

    String describe() {
        return switch (kind) {
            case EOF -> "end of template";
            case TEXT -> "template text";
            case STRING -> "string " + text;
            default -> "'" + text + "'";
        };
    }
}
