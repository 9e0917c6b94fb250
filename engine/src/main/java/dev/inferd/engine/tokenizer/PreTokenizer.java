package dev.inferd.engine.tokenizer;

import dev.inferd.engine.gguf.GGUFFormatException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits text into words before byte-level BPE, with the regular expressions llama.cpp uses for each
 * {@code tokenizer.ggml.pre} value. Several expressions apply in sequence: each one splits every piece
 * the previous one produced, keeping both its matches and the text between them. Lookaheads see only
 * the current piece. Java's backtracking matches the way llama.cpp's (and Hugging Face's) engines do,
 * so the expressions are written exactly as there; {@code \s} is Unicode White_Space.
 */
enum PreTokenizer {
    /** GPT-2 and the models that kept its pre-tokenizer. */
    GPT2(false, false, Regex.GPT2),
    /** Llama 3: up to 3 digits per word; a word that is a whole token skips the merges. */
    LLAMA3(true, true, Regex.LLAMA3),
    /** Same expression as Llama 3, but merges always apply (DBRX, Smaug). */
    LLAMA3_MERGED(false, false, Regex.LLAMA3),
    /** Qwen 2: like Llama 3 with one digit per word. */
    QWEN2(false, false, Regex.QWEN2),
    /** Mistral Nemo's Tekken: words split at case changes, one digit per word; whole-token words skip the merges. */
    TEKKEN(true, true, Regex.TEKKEN),
    /** GPT-4o's (Phi-4-mini): words split at case changes with their contractions, up to 3 digits per word. */
    GPT4O(false, false, Regex.GPT4O),
    /** SmolLM, StarCoder: every digit on its own, then GPT-2's expression. */
    SMOLLM(false, false, "\\p{N}", Regex.GPT2),
    /** llama.cpp's fallback when the file names no pre-tokenizer. */
    DEFAULT(false, false, "[\\p{P}\\$\\+<=>\\^~\\|]+", Regex.GPT2, "\\p{N}+", "[0-9][0-9][0-9]");

    private final boolean ignoreMerges;
    private final boolean addsBosByDefault;
    private final List<Pattern> patterns;

    PreTokenizer(boolean ignoreMerges, boolean addsBosByDefault, String... regexes) {
        this.ignoreMerges = ignoreMerges;
        this.addsBosByDefault = addsBosByDefault;
        this.patterns = Arrays.stream(regexes)
                .map(r -> Pattern.compile(r, Pattern.UNICODE_CHARACTER_CLASS))
                .toList();
    }

    /** The pre-tokenizer for a {@code tokenizer.ggml.pre} value (null or empty: llama.cpp's default). */
    static PreTokenizer forName(String name) {
        if (name == null || name.isEmpty() || name.equals("default")) return DEFAULT;
        if (Names.GPT2.contains(name)) return GPT2;
        if (Names.LLAMA3.contains(name)) return LLAMA3;
        if (Names.LLAMA3_MERGED.contains(name)) return LLAMA3_MERGED;
        if (Names.QWEN2.contains(name)) return QWEN2;
        if (Names.SMOLLM.contains(name)) return SMOLLM;
        if (name.equals("tekken")) return TEKKEN;
        if (Names.GPT4O.contains(name)) return GPT4O;
        throw new GGUFFormatException("pre-tokenizer '" + name + "' (tokenizer.ggml.pre) is not supported; supported: "
                + "gpt-2, llama-bpe, qwen2, deepseek-r1-qwen, smollm, tekken, gpt-4o and their aliases");
    }

    /** Whether {@link #forName} knows {@code name}. */
    static boolean supports(String name) {
        try {
            forName(name);
            return true;
        } catch (GGUFFormatException e) {
            return false;
        }
    }

    /** Whether a word that is itself a vocabulary entry is emitted whole instead of merged. */
    boolean ignoresMerges() {
        return ignoreMerges;
    }

    /** llama.cpp's {@code add_bos} default for this pre-tokenizer, used when the file does not say. */
    boolean addsBosByDefault() {
        return addsBosByDefault;
    }

    /** The words of {@code text}, in order; together they are exactly the text. */
    List<String> split(String text) {
        List<String> pieces = List.of(text);
        for (Pattern pattern : patterns) {
            List<String> next = new ArrayList<>(pieces.size() * 2);
            for (String piece : pieces) splitInto(pattern, piece, next);
            pieces = next;
        }
        return pieces;
    }

    private static void splitInto(Pattern pattern, String piece, List<String> out) {
        Matcher m = pattern.matcher(piece);
        int last = 0;
        while (m.find()) {
            if (m.end() == m.start()) continue;
            if (m.start() > last) out.add(piece.substring(last, m.start()));
            out.add(piece.substring(m.start(), m.end()));
            last = m.end();
        }
        if (last < piece.length()) out.add(piece.substring(last));
    }

    private static final class Regex {
        static final String GPT2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";
        private static final String CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";
        static final String LLAMA3 = CONTRACTIONS
                + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
        /** A letter that is not a-z, then one that is not A-Z: llama.cpp's spelling of upper- and lower-case runs. */
        private static final String UPPER = "((?=[\\p{L}])([^a-z]))";
        private static final String LOWER = "((?=[\\p{L}])([^A-Z]))";
        static final String TEKKEN = "[^\\r\\n\\p{L}\\p{N}]?" + UPPER + "*" + LOWER + "+|[^\\r\\n\\p{L}\\p{N}]?" + UPPER + "+"
                + LOWER + "*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
        static final String GPT4O = "[^\\r\\n\\p{L}\\p{N}]?" + UPPER + "*" + LOWER + "+" + CONTRACTIONS + "?|[^\\r\\n\\p{L}\\p{N}]?"
                + UPPER + "+" + LOWER + "*" + CONTRACTIONS + "?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
        static final String QWEN2 = CONTRACTIONS
                + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    }

    /** The {@code tokenizer.ggml.pre} values llama.cpp maps to each expression set. */
    private static final class Names {
        static final Set<String> GPT2 = Set.of("gpt-2", "phi-2", "mpt", "olmo", "jais", "gigachat", "a.x-4.0",
                "mellum", "exaone4", "trillion", "granite-docling");
        static final Set<String> LLAMA3 = Set.of("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1",
                "pixtral", "midm-2.0", "lfm2");
        static final Set<String> LLAMA3_MERGED = Set.of("dbrx", "smaug-bpe");
        static final Set<String> QWEN2 = Set.of("qwen2", "deepseek-r1-qwen", "stablelm2", "megrez");
        static final Set<String> GPT4O = Set.of("gpt-4o", "llama4");
        static final Set<String> SMOLLM = Set.of("smollm", "starcoder", "refact", "command-r", "codeshell",
                "exaone", "minerva-7b");
    }
}
