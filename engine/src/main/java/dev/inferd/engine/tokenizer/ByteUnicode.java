package dev.inferd.engine.tokenizer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * GPT-2's reversible byte-to-character map: byte-level BPE vocabularies store every byte as a
 * printable character, so a token never contains a raw space or control byte. Printable Latin-1
 * bytes stand for themselves; the other 68 bytes map, in order, to U+0100 and up (space is {@code Ġ}).
 */
final class ByteUnicode {
    private static final char[] BYTE_TO_CHAR = new char[256];
    private static final int[] CHAR_TO_BYTE = new int[512];

    static {
        java.util.Arrays.fill(CHAR_TO_BYTE, -1);
        int next = 256;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            char c = (char) (printable ? b : next++);
            BYTE_TO_CHAR[b] = c;
            CHAR_TO_BYTE[c] = b;
        }
    }

    private ByteUnicode() {
    }

    /** The text's UTF-8 bytes, each written as its GPT-2 character. */
    static String encode(String text) {
        return encode(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Each byte written as its GPT-2 character. */
    static String encode(byte[] bytes) {
        char[] chars = new char[bytes.length];
        for (int i = 0; i < bytes.length; i++) chars[i] = BYTE_TO_CHAR[bytes[i] & 0xFF];
        return new String(chars);
    }

    /**
     * The bytes a vocabulary entry stands for. A character outside the map (not produced by GPT-2
     * encoding) contributes its own UTF-8 bytes.
     */
    static byte[] decode(String token) {
        var out = new ByteArrayOutputStream(token.length());
        for (int i = 0; i < token.length(); ) {
            int cp = token.codePointAt(i);
            i += Character.charCount(cp);
            int b = cp < CHAR_TO_BYTE.length ? CHAR_TO_BYTE[cp] : -1;
            if (b >= 0) {
                out.write(b);
            } else {
                out.writeBytes(Character.toString(cp).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }
}
