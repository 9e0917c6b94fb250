package dev.inferd.engine.tokenizer;

/**
 * Token attributes as a bit set. A set rather than a single type because llama.cpp's loader can add
 * flags to a token: a user-defined {@code </s>} that ends generation also becomes control, and Phi-3's
 * special tokens strip the whitespace to their right.
 */
final class TokenAttr {
    static final int UNDEFINED = 0;
    static final int UNKNOWN = 1;
    static final int UNUSED = 1 << 1;
    static final int NORMAL = 1 << 2;
    static final int CONTROL = 1 << 3;
    static final int USER_DEFINED = 1 << 4;
    static final int BYTE = 1 << 5;
    static final int LSTRIP = 1 << 7;
    static final int RSTRIP = 1 << 8;

    private TokenAttr() {
    }

    /** The attribute for a {@code tokenizer.ggml.token_type} value (1 normal .. 6 byte). */
    static int fromTokenType(int type) {
        return switch (type) {
            case 1 -> NORMAL;
            case 2 -> UNKNOWN;
            case 3 -> CONTROL;
            case 4 -> USER_DEFINED;
            case 5 -> UNUSED;
            case 6 -> BYTE;
            default -> UNDEFINED;
        };
    }
}
