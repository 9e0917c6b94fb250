package dev.inferd.engine.tokenizer;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A Hugging Face tokenizer ({@code tokenizer.json} and {@code tokenizer_config.json}) turned into GGUF vocabulary
 * keys the way llama.cpp's {@code convert_hf_to_gguf.py} does, for tokenizer tests on real vocabularies when only
 * the Hugging Face files are at hand.
 *
 * <p>Byte-level BPE: the tokens by id ({@code [PAD<id>]}, unused, for ids nobody has), added tokens as control
 * tokens when special or special-looking, else user-defined, and the merges. SentencePiece (a BPE model with
 * byte fallback, as Gemma's): the pieces, {@code <0xNN>} as byte tokens, added tokens as above with score -1000.
 * The pieces' scores live only in {@code tokenizer.model}, which the Hugging Face file replaces by merges ordered
 * by those scores; each piece gets minus the rank of the first merge that forms it, which orders every pair the
 * way the real scores do. Pieces no merge forms (single characters) are never a merge's result, so their score
 * is never read.
 */
final class HuggingFaceVocabulary {
    private HuggingFaceVocabulary() {
    }

    static VocabularyModel read(Path dir, String name, String pre) throws IOException {
        var json = new JsonMapper();
        JsonNode tokenizer = json.readTree(dir.resolve("tokenizer.json").toFile());
        JsonNode config = json.readTree(dir.resolve("tokenizer_config.json").toFile());
        JsonNode model = tokenizer.get("model");
        if (!model.path("type").asString().equals("BPE")) throw new IllegalArgumentException(name + ": not a BPE model");
        return model.path("byte_fallback").asBoolean()
                ? sentencePiece(name, tokenizer, config)
                : byteLevel(name, pre, tokenizer, config);
    }

    private static VocabularyModel byteLevel(String name, String pre, JsonNode tokenizer, JsonNode config) {
        JsonNode vocab = tokenizer.get("model").get("vocab");
        int size = 0;
        for (JsonNode id : vocab) size = Math.max(size, id.asInt() + 1);
        for (JsonNode added : tokenizer.get("added_tokens")) size = Math.max(size, added.get("id").asInt() + 1);
        String[] tokens = new String[size];
        int[] types = new int[size];
        for (int i = 0; i < size; i++) {
            tokens[i] = "[PAD" + i + "]";
            types[i] = VocabularyModel.UNUSED;
        }
        vocab.properties().forEach(e -> {
            tokens[e.getValue().asInt()] = e.getKey();
            types[e.getValue().asInt()] = VocabularyModel.NORMAL;
        });
        for (JsonNode added : tokenizer.get("added_tokens")) {
            int id = added.get("id").asInt();
            String text = added.get("content").asString();
            boolean control = added.get("special").asBoolean() || looksSpecial(text);
            tokens[id] = control ? text : text.replace('\u2581', ' ');
            types[id] = control ? VocabularyModel.CONTROL : VocabularyModel.USER_DEFINED;
        }
        JsonNode mergeList = tokenizer.get("model").get("merges");
        String[] merges = new String[mergeList.size()];
        for (int i = 0; i < merges.length; i++) {
            JsonNode m = mergeList.get(i);
            merges[i] = m.isArray() ? m.get(0).asString() + " " + m.get(1).asString() : m.asString();
        }
        Map<String, Integer> ids = ids(tokens);
        return new VocabularyModel(name, "gpt2", pre, tokens, types, null, merges,
                ids.getOrDefault(text(config, "bos_token"), 0), ids.getOrDefault(text(config, "eos_token"), 0), 0, false);
    }

    private static VocabularyModel sentencePiece(String name, JsonNode tokenizer, JsonNode config) {
        JsonNode vocab = tokenizer.get("model").get("vocab");
        int size = vocab.size();
        String[] tokens = new String[size];
        int[] types = new int[size];
        float[] scores = new float[size];
        String unknown = tokenizer.get("model").path("unk_token").asString();
        vocab.properties().forEach(e -> {
            int id = e.getValue().asInt();
            String piece = e.getKey();
            tokens[id] = piece;
            types[id] = piece.equals(unknown) ? VocabularyModel.UNKNOWN
                    : piece.matches("<0x[0-9A-F]{2}>") ? VocabularyModel.BYTE : VocabularyModel.NORMAL;
        });
        Map<String, Integer> ids = ids(tokens);
        Arrays.fill(scores, Float.NEGATIVE_INFINITY);
        JsonNode merges = tokenizer.get("model").get("merges");
        for (int rank = merges.size() - 1; rank >= 0; rank--) {
            JsonNode m = merges.get(rank);
            String formed = m.isArray() ? m.get(0).asString() + m.get(1).asString() : m.asString().replace(" ", "");
            Integer id = ids.get(formed);
            if (id != null) scores[id] = -rank;
        }
        for (int i = 0; i < size; i++) if (scores[i] == Float.NEGATIVE_INFINITY) scores[i] = -merges.size() - i;
        config.path("added_tokens_decoder").properties().forEach(e -> {
            int id = Integer.parseInt(e.getKey());
            if (id >= size) return;
            String text = e.getValue().get("content").asString();
            boolean control = e.getValue().path("special").asBoolean() || looksSpecial(text);
            tokens[id] = control ? text : text.replace('\u2581', ' ');
            types[id] = control ? VocabularyModel.CONTROL : VocabularyModel.USER_DEFINED;
            scores[id] = -1000;
        });
        Map<String, Integer> finalIds = ids(tokens);
        return new VocabularyModel(name, "llama", null, tokens, types, scores, null,
                finalIds.getOrDefault(text(config, "bos_token"), 0), finalIds.getOrDefault(text(config, "eos_token"), 0),
                finalIds.getOrDefault(unknown, 0), false);
    }

    /** Added tokens that llama.cpp's converter makes control tokens although they are not marked special. */
    private static boolean looksSpecial(String text) {
        return text.equals("<pad>") || text.equals("<mask>") || text.equals("<2mass>") || text.equals("[@BOS@]")
                || (text.startsWith("<|") && text.endsWith("|>"))
                || (text.startsWith("<\uFF5C") && text.endsWith("\uFF5C>"))
                || (text.startsWith("<unused") && text.endsWith(">"));
    }

    private static String text(JsonNode config, String field) {
        JsonNode v = config.path(field);
        return v.isObject() ? v.path("content").asString() : v.asString();
    }

    private static Map<String, Integer> ids(String[] tokens) {
        var ids = new HashMap<String, Integer>(tokens.length * 2);
        for (int i = tokens.length - 1; i >= 0; i--) ids.put(tokens[i], i);
        return ids;
    }
}
