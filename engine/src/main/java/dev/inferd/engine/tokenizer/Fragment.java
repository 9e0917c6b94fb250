package dev.inferd.engine.tokenizer;

/** A piece of the input after special tokens are cut out: raw text to tokenize, or a special token. */
sealed interface Fragment {
    record Text(String text) implements Fragment {
    }

    record SpecialToken(int id) implements Fragment {
    }
}
