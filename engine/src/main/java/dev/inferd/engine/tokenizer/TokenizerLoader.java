package dev.inferd.engine.tokenizer;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.GGUFFormatException;

/** Picks the tokenizer implementation named by {@code tokenizer.ggml.model}. */
final class TokenizerLoader {
    private TokenizerLoader() {
    }

    static Tokenizer load(GGUFFile gguf) {
        String file = String.valueOf(gguf.path().getFileName());
        String model = gguf.getString("tokenizer.ggml.model", null);
        if (model == null) {
            throw new GGUFFormatException(file + " has no tokenizer (tokenizer.ggml.model is missing)");
        }
        return switch (model) {
            case "llama" -> new SentencePieceTokenizer(Vocabulary.load(gguf, Vocabulary.Defaults.SENTENCE_PIECE));
            case "gpt2" -> {
                PreTokenizer pre = PreTokenizer.forName(gguf.getString("tokenizer.ggml.pre", null));
                if (!(gguf.metadata().get("tokenizer.ggml.merges") instanceof String[] merges)) {
                    throw new GGUFFormatException(file + ": a gpt2 tokenizer needs tokenizer.ggml.merges (an array of strings)");
                }
                Vocabulary vocab = Vocabulary.load(gguf, Vocabulary.Defaults.byteLevelBpe(pre.addsBosByDefault()));
                yield new ByteLevelBpeTokenizer(vocab, pre, merges);
            }
            default -> throw new GGUFFormatException(file + ": tokenizer model '" + model
                    + "' is not supported (llama and gpt2 are)");
        };
    }
}
