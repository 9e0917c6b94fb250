package dev.inferd.engine.model.synthetic;

import dev.inferd.engine.gguf.GGUFWriter;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A byte-level BPE ({@code tokenizer.ggml.model = gpt2}) vocabulary of any size shaped like a real
 * one, for tests and benchmarks of what depends on the token bytes (constrained decoding walks them
 * as a trie): the 256 single bytes, every number of up to three digits, runs of spaces, newlines and
 * indentation, punctuation pairs and JSON fragments, two-, three- and four-byte UTF-8 characters and
 * fragments of them, then made-up words with and without a leading space or capital, up to the size.
 * The last {@value #SPECIALS} entries are control tokens named as Llama 3 names them.
 * Deterministic: the same size gives the same vocabulary.
 */
public final class SyntheticByteLevelVocabulary {
    /** Llama 3's vocabulary size. */
    public static final int LLAMA3_SIZE = 128_256;
    public static final int SPECIALS = 256;
    private static final int CONTROL = 3;
    private static final int NORMAL = 1;
    private static final char[] BYTE_TO_CHAR = new char[256];

    static {
        int next = 256;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            BYTE_TO_CHAR[b] = (char) (printable ? b : next++);
        }
    }

    private SyntheticByteLevelVocabulary() {
    }

    /** The id of {@code <|begin_of_text|>}. */
    public static int bos(int size) {
        return size - SPECIALS;
    }

    /** The id of {@code <|end_of_text|>}. */
    public static int eos(int size) {
        return size - SPECIALS + 1;
    }

    /** The id of {@code <|eot_id|>}. */
    public static int eot(int size) {
        return size - SPECIALS + 9;
    }

    /** Each token's bytes in id order; null for the control tokens at the end. */
    public static byte[][] tokenBytes(int size) {
        if (size < 4096) throw new IllegalArgumentException("a synthetic byte-level vocabulary has at least 4096 tokens");
        int normal = size - SPECIALS;
        var out = new ArrayList<byte[]>(size);
        var seen = new HashSet<String>();
        for (int b = 0; b < 256; b++) add(out, seen, new byte[] {(byte) b}, normal);
        for (int n = 0; n < 1000; n++) add(out, seen, Integer.toString(n), normal);
        for (int n = 2; n <= 16; n++) add(out, seen, " ".repeat(n), normal);
        for (int n = 1; n <= 16; n++) add(out, seen, "\n" + " ".repeat(n), normal);
        for (int n = 1; n <= 4; n++) {
            add(out, seen, "\t".repeat(n), normal);
            add(out, seen, "\n" + "\t".repeat(n), normal);
            add(out, seen, "\n".repeat(n + 1), normal);
        }
        for (String s : List.of("\r\n", " \n", "{\"", "\"}", "\":", "\",", "\",\"", "\":\"", "\":[", "\"]", "\"],", "},",
                "},{", "}}", "]}", "[{", "[]", "{}", "\":{\"", " \"", " {", " [", "\":[{\"", "\\\"", "\\\\", "\\n", "\n}",
                "null", "true", "false", " null", " true", " false", "\"\"", "\":true", "\":false", "\":null", "\": ",
                "\": \"", "\", \"", "},\n", "}\n", "]\n", "\":\n", "{\n", "[\n", ",\n", "\u00a0", "...", "://", "http", "https")) {
            add(out, seen, s, normal);
        }
        String punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
        for (char a : punctuation.toCharArray()) {
            for (char b : punctuation.toCharArray()) add(out, seen, "" + a + b, normal);
            add(out, seen, " " + a, normal);
        }
        var random = new SplittableRandom(41);
        for (int cp = 0xC0; cp < 0x500; cp++) {
            add(out, seen, Character.toString(cp), normal);
            if (cp % 3 == 0) add(out, seen, " " + Character.toString(cp), normal);
        }
        for (int cp = 0x4E00; cp < 0x4E00 + 6000; cp++) add(out, seen, Character.toString(cp), normal);
        for (int cp = 0x1F300; cp < 0x1F600; cp++) add(out, seen, Character.toString(cp), normal);
        for (int k = 0; k < 1500; k++) { // pieces of characters, as byte-level merges produce them
            byte[] full = Character.toString(0x4E00 + random.nextInt(20_000)).getBytes(StandardCharsets.UTF_8);
            add(out, seen, Arrays.copyOf(full, 2), normal);
            byte[] emoji = Character.toString(0x1F300 + random.nextInt(0x300)).getBytes(StandardCharsets.UTF_8);
            add(out, seen, Arrays.copyOfRange(emoji, random.nextInt(2), 3 + random.nextInt(2)), normal);
        }
        String[] onsets = {"b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
                "st", "tr", "pr", "ch", "sh", "th", "qu", "bl", "cr", "gr", "sp", "str", ""};
        String[] vowels = {"a", "e", "i", "o", "u", "ea", "ou", "io", "y", "ai", "ie"};
        String[] codas = {"", "", "n", "r", "s", "t", "l", "nd", "ng", "st", "ck", "m", "rt", "x", "ght", "tion"};
        while (out.size() < normal) {
            var word = new StringBuilder();
            int syllables = 1 + random.nextInt(random.nextInt(4) + 1);
            for (int s = 0; s < syllables; s++) {
                word.append(onsets[random.nextInt(onsets.length)]).append(vowels[random.nextInt(vowels.length)])
                        .append(codas[random.nextInt(codas.length)]);
            }
            String w = word.toString();
            String capital = Character.toUpperCase(w.charAt(0)) + w.substring(1);
            int shape = random.nextInt(20);
            String token = switch (shape) {
                case 0, 1, 2, 3, 4, 5, 6, 7 -> " " + w;
                case 8, 9, 10, 11 -> w;
                case 12, 13 -> " " + capital;
                case 14 -> capital;
                case 15 -> "_" + w;
                case 16 -> "\"" + w;
                case 17 -> w + "\":";
                case 18 -> "." + w;
                default -> w.toUpperCase();
            };
            add(out, seen, token, normal);
        }
        for (int i = 0; i < SPECIALS; i++) out.add(null);
        return out.toArray(new byte[0][]);
    }

    private static void add(List<byte[]> out, Set<String> seen, String text, int limit) {
        add(out, seen, text.getBytes(StandardCharsets.UTF_8), limit);
    }

    private static void add(List<byte[]> out, Set<String> seen, byte[] bytes, int limit) {
        if (out.size() >= limit) return;
        if (seen.add(new String(bytes, StandardCharsets.ISO_8859_1))) out.add(bytes);
    }

    /** The vocabulary entries as a GGUF stores them: bytes as GPT-2 characters, control tokens by name. */
    public static List<String> tokens(int size) {
        byte[][] bytes = tokenBytes(size);
        var texts = new ArrayList<String>(size);
        for (int i = 0; i < size - SPECIALS; i++) {
            var sb = new StringBuilder(bytes[i].length);
            for (byte b : bytes[i]) sb.append(BYTE_TO_CHAR[b & 0xFF]);
            texts.add(sb.toString());
        }
        for (int i = 0; i < SPECIALS; i++) texts.add(specialName(i));
        return texts;
    }

    private static String specialName(int i) {
        return switch (i) {
            case 0 -> "<|begin_of_text|>";
            case 1 -> "<|end_of_text|>";
            case 6 -> "<|start_header_id|>";
            case 7 -> "<|end_header_id|>";
            case 8 -> "<|eom_id|>";
            case 9 -> "<|eot_id|>";
            case 10 -> "<|python_tag|>";
            default -> "<|reserved_special_token_" + i + "|>";
        };
    }

    /** Adds the {@code tokenizer.ggml.*} keys of a Llama 3 style tokenizer with this vocabulary. */
    public static void addTo(GGUFWriter w, int size) {
        int[] types = new int[size];
        Arrays.fill(types, 0, size - SPECIALS, NORMAL);
        Arrays.fill(types, size - SPECIALS, size, CONTROL);
        String space = String.valueOf(BYTE_TO_CHAR[' ']);
        w.put("tokenizer.ggml.model", "gpt2")
                .put("tokenizer.ggml.pre", "llama-bpe")
                .put("tokenizer.ggml.tokens", tokens(size))
                .put("tokenizer.ggml.token_type", types)
                .put("tokenizer.ggml.merges", List.of(space + " " + space))
                .put("tokenizer.ggml.bos_token_id", bos(size))
                .put("tokenizer.ggml.eos_token_id", eos(size))
                .put("tokenizer.ggml.add_bos_token", true);
    }
}
