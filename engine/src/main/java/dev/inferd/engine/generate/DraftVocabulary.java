package dev.inferd.engine.generate;

import dev.inferd.engine.tokenizer.Tokenizer;

import java.nio.file.Path;

/**
 * Whether a draft model can draft for a target: its token ids must mean the target's, since the
 * target verifies the draft's ids as they are. The vocabularies may differ in length by the padding a
 * family adds to its larger members (Qwen2.5's 0.5B has 151,936 entries, its 7B 152,064), never in
 * what a shared id stands for.
 */
final class DraftVocabulary {
    /** The most entries the two vocabularies may differ by (padding, a few added special tokens). */
    static final int MAX_SIZE_DIFFERENCE = 128;

    private DraftVocabulary() {
    }

    /** @throws IllegalArgumentException saying how they differ when {@code draft} cannot draft for {@code target} */
    static void check(Tokenizer target, Tokenizer draft, Path targetFile, Path draftFile) {
        String pair = "the draft model " + draftFile.getFileName() + " cannot draft for " + targetFile.getFileName() + ": ";
        int difference = Math.abs(target.vocabSize() - draft.vocabSize());
        if (difference > MAX_SIZE_DIFFERENCE) {
            throw new IllegalArgumentException(pair + "their vocabularies differ (" + draft.vocabSize() + " tokens against "
                    + target.vocabSize() + "); a draft model must share the target's tokenizer (the same family)");
        }
        int shared = Math.min(target.vocabSize(), draft.vocabSize());
        for (int t = 0; t < shared; t++) {
            if (!target.tokenText(t).equals(draft.tokenText(t))) {
                throw new IllegalArgumentException(pair + "their vocabularies differ (token " + t + " is '" + draft.tokenText(t)
                        + "' in the draft and '" + target.tokenText(t) + "' in the target); a draft model must share the "
                        + "target's tokenizer (the same family)");
            }
        }
        if (target.bos() != draft.bos() && target.addsBos()) {
            throw new IllegalArgumentException(pair + "they begin a sequence with different tokens (" + draft.bos() + " and "
                    + target.bos() + ")");
        }
    }
}
