package dev.inferd.engine.tokenizer;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.GGUFFormatException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The token list of a GGUF file with everything both tokenizer kinds share: scores, attributes,
 * special token ids, the BOS/EOS policy and the set of tokens that end a generation. Follows how
 * llama.cpp's {@code llama_vocab::load} interprets the {@code tokenizer.ggml.*} keys.
 */
final class Vocabulary {
    static final int NONE = -1;

    /**
     * Texts that mark a token as ending a generation whatever the metadata says (llama.cpp builds its
     * EOG set the same way: the converters do not record all of them).
     */
    private static final Set<String> END_OF_GENERATION_TEXTS = Set.of(
            "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
            "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
            "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
            "<｜end▁of▁sentence｜>", "[e~[");
    /** Texts of an end-of-turn token, looked for when the file names no {@code eot_token_id}. */
    private static final List<String> END_OF_TURN_TEXTS = List.of(
            "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>",
            "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>");
    /** Fill-in-the-middle pad / repo / file-separator tokens also end a generation in llama.cpp. */
    private static final List<List<String>> FIM_END_TEXTS = List.of(
            List.of("<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"),
            List.of("<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"),
            List.of("<|file_sep|>"));

    /** What the model kind implies when the file says nothing (llama.cpp's per-type defaults). */
    record Defaults(int bos, int eos, int unknown, boolean addBos, boolean addSpacePrefix) {
        static final Defaults SENTENCE_PIECE = new Defaults(1, 2, 0, true, true);

        static Defaults byteLevelBpe(boolean addBos) {
            return new Defaults(11, 11, NONE, addBos, false);
        }
    }

    private final String[] texts;
    private final float[] scores;
    private final int[] attrs;
    private final Map<String, Integer> ids;
    final int bos;
    final int eos;
    final int eot;
    final int eom;
    final int unknown;
    final int padding;
    final boolean addBos;
    final boolean addEos;
    final boolean addSpacePrefix;
    private final BitSet endOfGeneration = new BitSet();
    /** Control, user-defined and unknown tokens, longest text first: the order they are cut out of input. */
    private final int[] specialsLongestFirst;

    private Vocabulary(GGUFFile gguf, Defaults defaults) {
        String file = String.valueOf(gguf.path().getFileName());
        if (!(gguf.metadata().get("tokenizer.ggml.tokens") instanceof String[] tokens)) {
            throw new GGUFFormatException(file + ": tokenizer.ggml.tokens is missing or not an array of strings");
        }
        int n = tokens.length;
        texts = new String[n];
        ids = HashMap.newHashMap(n);
        for (int i = 0; i < n; i++) {
            // llama.cpp renames empty entries so that every token has a distinct, non-empty text
            String text = tokens[i].isEmpty() ? "[EMPTY_" + i + "]" : tokens[i];
            texts[i] = text;
            Integer previous = ids.putIfAbsent(text, i);
            if (previous != null) {
                throw new GGUFFormatException(file + ": duplicate token '" + text + "' has ids " + previous + " and " + i);
            }
        }
        scores = readScores(gguf, file, n);
        attrs = readAttributes(gguf, file, n);

        int unk = specialId(gguf, "unknown_token_id", defaults.unknown());
        int bosId = specialId(gguf, "bos_token_id", defaults.bos());
        int eosId = specialId(gguf, "eos_token_id", defaults.eos());
        int eotId = specialId(gguf, "eot_token_id", NONE);
        int eomId = specialId(gguf, "eom_token_id", NONE);
        padding = specialId(gguf, "padding_token_id", NONE);
        addBos = gguf.getBoolean("tokenizer.ggml.add_bos_token", defaults.addBos());
        addEos = gguf.getBoolean("tokenizer.ggml.add_eos_token", false);
        addSpacePrefix = gguf.getBoolean("tokenizer.ggml.add_space_prefix", defaults.addSpacePrefix());
        if (addBos && bosId == NONE) {
            throw new GGUFFormatException(file + ": tokenizer.ggml.add_bos_token is true but there is no BOS token");
        }
        if (addEos && eosId == NONE) {
            throw new GGUFFormatException(file + ": tokenizer.ggml.add_eos_token is true but there is no EOS token");
        }
        if (eotId == NONE) eotId = firstWithText(END_OF_TURN_TEXTS);
        if (eomId == NONE) eomId = firstWithText(List.of("<|eom_id|>"));
        for (int id : new int[] {eotId, eomId}) {
            if (id != NONE) attrs[id] |= TokenAttr.CONTROL;
        }
        unknown = unk;
        bos = bosId;
        eos = eosId;
        eot = eotId;
        eom = eomId;

        collectEndOfGeneration();
        specialsLongestFirst = collectSpecials();
        applyModelQuirks(gguf);
    }

    static Vocabulary load(GGUFFile gguf, Defaults defaults) {
        return new Vocabulary(gguf, defaults);
    }

    int size() {
        return texts.length;
    }

    String text(int id) {
        return texts[id];
    }

    float score(int id) {
        return scores[id];
    }

    boolean has(int id, int attr) {
        return (attrs[id] & attr) != 0;
    }

    /** The id of the token with exactly this text, or {@link #NONE}. */
    int id(String text) {
        Integer id = ids.get(text);
        return id == null ? NONE : id;
    }

    boolean isEndOfGeneration(int id) {
        return id >= 0 && endOfGeneration.get(id);
    }

    int[] specialsLongestFirst() {
        return specialsLongestFirst;
    }

    void checkId(int id) {
        if (id < 0 || id >= texts.length) {
            throw new IllegalArgumentException("token id " + id + " is outside the vocabulary (0.." + (texts.length - 1) + ")");
        }
    }

    // ---- loading ----

    private static float[] readScores(GGUFFile gguf, String file, int n) {
        Object raw = gguf.metadata().get("tokenizer.ggml.scores");
        float[] scores = switch (raw) {
            case null -> new float[n];
            case float[] f -> f;
            case int[] ints -> {
                float[] f = new float[ints.length];
                for (int i = 0; i < ints.length; i++) f[i] = ints[i];
                yield f;
            }
            default -> throw new GGUFFormatException(file + ": tokenizer.ggml.scores is not an array of float32 or int32");
        };
        if (scores.length < n) {
            throw new GGUFFormatException(file + ": " + scores.length + " scores for " + n + " tokens");
        }
        return scores;
    }

    private static int[] readAttributes(GGUFFile gguf, String file, int n) {
        int[] attrs = new int[n];
        Object raw = gguf.metadata().get("tokenizer.ggml.token_type");
        if (raw == null) {
            Arrays.fill(attrs, TokenAttr.NORMAL);
            return attrs;
        }
        if (!(raw instanceof int[] types)) {
            throw new GGUFFormatException(file + ": tokenizer.ggml.token_type is not an array of int32");
        }
        if (types.length < n) {
            throw new GGUFFormatException(file + ": " + types.length + " token types for " + n + " tokens");
        }
        for (int i = 0; i < n; i++) attrs[i] = TokenAttr.fromTokenType(types[i]);
        return attrs;
    }

    /**
     * A special token id from {@code tokenizer.ggml.<key>}. As in llama.cpp, an id outside the
     * vocabulary (converters write 0xFFFFFFFF for "none") leaves the default in place, and a default
     * outside the vocabulary means there is no such token.
     */
    private int specialId(GGUFFile gguf, String key, int fallback) {
        int id = fallback >= texts.length ? NONE : fallback;
        if (gguf.metadata().get("tokenizer.ggml." + key) instanceof Number value) {
            long v = value.longValue();
            if (v >= 0 && v < texts.length) id = (int) v;
        }
        return id;
    }

    private int firstWithText(List<String> candidates) {
        for (String text : candidates) {
            int id = id(text);
            if (id != NONE) return id;
        }
        return NONE;
    }

    private void collectEndOfGeneration() {
        for (List<String> texts : FIM_END_TEXTS) {
            int id = firstWithText(texts);
            if (id != NONE) {
                endOfGeneration.set(id);
                attrs[id] |= TokenAttr.CONTROL;
            }
        }
        for (String text : END_OF_GENERATION_TEXTS) {
            int id = id(text);
            if (id != NONE) {
                endOfGeneration.set(id);
                attrs[id] |= TokenAttr.CONTROL;
            }
        }
        for (int id : new int[] {eos, eot, eom}) {
            if (id != NONE) endOfGeneration.set(id);
        }
        // gpt-oss (harmony) ends messages with <|end|> mid-answer; only <|return|> / <|call|> end the turn
        int end = id("<|end|>");
        boolean harmony = id("<|return|>") != NONE && id("<|call|>") != NONE;
        boolean solar = id("<|calls|>") != NONE && id("<|flush|>") != NONE;
        if (end != NONE && (harmony || solar)) {
            endOfGeneration.clear(end);
            attrs[end] = TokenAttr.USER_DEFINED;
        }
        // Gemma 4 uses </s> as ordinary text
        int closingS = id("</s>");
        if (closingS != NONE && id("<|tool_response>") != NONE) {
            endOfGeneration.clear(closingS);
            attrs[closingS] = TokenAttr.NORMAL;
        }
    }

    private int[] collectSpecials() {
        List<Integer> specials = new ArrayList<>();
        for (int id = 0; id < texts.length; id++) {
            if (has(id, TokenAttr.CONTROL | TokenAttr.USER_DEFINED | TokenAttr.UNKNOWN)) specials.add(id);
        }
        // by UTF-8 length as llama.cpp does; ties keep id order
        specials.sort(Comparator.comparingInt((Integer id) -> texts[id].getBytes(StandardCharsets.UTF_8).length).reversed());
        return specials.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Per-model token attributes that the GGUF does not store but llama.cpp applies by model name. */
    private void applyModelQuirks(GGUFFile gguf) {
        String name = gguf.getString("general.name", "").toLowerCase(Locale.ROOT);
        if (name.contains("phi-3") || name.contains("phi3")) {
            for (int id : specialsLongestFirst) attrs[id] |= TokenAttr.RSTRIP;
            setFlag("</s>", TokenAttr.RSTRIP, true);
            for (String text : List.of("<unk>", "<s>", "<|endoftext|>")) setFlag(text, TokenAttr.RSTRIP, false);
        }
    }

    private void setFlag(String text, int flag, boolean on) {
        int id = id(text);
        if (id == NONE) return;
        attrs[id] = on ? attrs[id] | flag : attrs[id] & ~flag;
    }
}
