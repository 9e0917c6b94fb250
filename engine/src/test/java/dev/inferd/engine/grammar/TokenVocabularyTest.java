package dev.inferd.engine.grammar;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.GGUFWriter;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.model.synthetic.SyntheticByteLevelVocabulary;
import dev.inferd.engine.tokenizer.Tokenizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** A tokenizer's vocabulary as the grammar sees it: special tokens never spell text, end tokens end. */
class TokenVocabularyTest {
    @TempDir
    Path dir;

    @Test
    void controlTokensNeverMatchTextAndEndTokensOnlyEnd() throws Exception {
        int size = 4096;
        var w = new GGUFWriter().put("general.architecture", "llama");
        SyntheticByteLevelVocabulary.addTo(w, size);
        Path file = dir.resolve("vocab.gguf");
        w.write(file);
        try (var gguf = GGUFFile.open(file)) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            var vocab = TokenVocabulary.of(tokenizer);
            assertThat(TokenVocabulary.of(tokenizer)).as("built once per tokenizer").isSameAs(vocab);
            var m = JsonSchemaCompiler.anyValue(JsonSchemaCompiler.Options.DEFAULT).matcher(vocab);
            long[] mask = new long[vocab.maskWords()];
            m.fillMask(mask);
            int firstSpecial = size - SyntheticByteLevelVocabulary.SPECIALS;
            for (int t = firstSpecial; t < size; t++) assertThat((mask[t >>> 6] & 1L << t) != 0).as("token %d", t).isFalse();
            assertThat(TokenMasks.count(mask, size)).isGreaterThan(100);
            assertThat(m.accept(tokenizer.encode("7", false, false)[0])).isTrue();
            m.fillMask(mask);
            for (int t = firstSpecial; t < size; t++) {
                boolean endsGeneration = tokenizer.isEndOfGeneration(t);
                assertThat((mask[t >>> 6] & 1L << t) != 0).as("token %d (%s)", t, tokenizer.tokenText(t)).isEqualTo(endsGeneration);
            }
            assertThat(tokenizer.isSpecial(SyntheticByteLevelVocabulary.eot(size))).isTrue();
            assertThat(tokenizer.isSpecial(tokenizer.encode("7", false, false)[0])).isFalse();
        }
    }
}
