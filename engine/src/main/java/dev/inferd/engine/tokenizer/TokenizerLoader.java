package dev.inferd.engine.tokenizer;

import dev.inferd.engine.gguf.GGUFFile;

/** Picks the tokenizer implementation named by {@code tokenizer.ggml.model}. */
final class TokenizerLoader {
    private TokenizerLoader() {
    }

    static Tokenizer load(GGUFFile gguf) {
        String model = gguf.getString("tokenizer.ggml.model", null);
        throw new UnsupportedOperationException("tokenizer model " + model + " not implemented yet");
    }
}
