package dev.inferd.speech.whisper;

import dev.inferd.engine.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WhisperModelFileTest {

    @TempDir
    Path tmp;

    @Test
    void readsTheMultilingualTinyHeaderAndVocabulary() throws IOException {
        try (var f = WhisperModelFile.open(Fixtures.require("whisper/for-tests-ggml-tiny.bin"))) {
            assertThat(f.hparams()).isEqualTo(new WhisperHParams(51865, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1));
            assertThat(f.hparams().multilingual()).isTrue();
            assertThat(f.hparams().languageCount()).isEqualTo(99);
            assertThat(f.hparams().sizeName()).isEqualTo("tiny");
            assertThat(f.melFilterLength()).isEqualTo(201);
            assertThat(f.words()).hasSize(50257);
            assertThat(new String(f.words().get(0))).isEqualTo("!");
            assertThat(f.tensors()).isEmpty();
            var specials = SpecialTokens.of(f.hparams());
            assertThat(specials.endOfText()).isEqualTo(50257);
            assertThat(specials.startOfTranscript()).isEqualTo(50258);
            assertThat(specials.language(0)).isEqualTo(50259);
            assertThat(specials.translate()).isEqualTo(50358);
            assertThat(specials.transcribe()).isEqualTo(50359);
            assertThat(specials.noSpeech()).isEqualTo(50362);
            assertThat(specials.noTimestamps()).isEqualTo(50363);
            assertThat(specials.timestampBegin()).isEqualTo(50364);
            assertThat(specials.timestampCount()).isEqualTo(1501);
        }
    }

    @Test
    void readsTheEnglishOnlyTinyHeader() throws IOException {
        try (var f = WhisperModelFile.open(Fixtures.require("whisper/for-tests-ggml-tiny.en.bin"))) {
            assertThat(f.hparams().nVocab()).isEqualTo(51864);
            assertThat(f.hparams().multilingual()).isFalse();
            assertThat(f.hparams().sizeName()).isEqualTo("tiny.en");
            var specials = SpecialTokens.of(f.hparams());
            assertThat(specials.endOfText()).isEqualTo(50256);
            assertThat(specials.startOfTranscript()).isEqualTo(50257);
            assertThat(specials.languageCount()).isZero();
            assertThat(specials.transcribe()).isEqualTo(50358);
            assertThat(specials.noTimestamps()).isEqualTo(50362);
            assertThat(specials.timestampBegin()).isEqualTo(50363);
            assertThat(new String(f.words().get(50256))).isEqualTo("<|endoftext|>");
        }
    }

    @Test
    void theTokenizerRoundTripsTextThroughTheFilesVocabulary() throws IOException {
        try (var f = WhisperModelFile.open(Fixtures.require("whisper/for-tests-ggml-tiny.bin"))) {
            var tok = new WhisperTokenizer(f.words(), SpecialTokens.of(f.hparams()));
            String text = " And so my fellow Americans, ask not what your country can do for you.";
            List<Integer> ids = tok.encode(text);
            assertThat(tok.decode(ids)).isEqualTo(text);
            // GPT-2 byte-level BPE: " And" is one token, " Americans" one token
            assertThat(ids.get(0)).isEqualTo(400);
            assertThat(ids.size()).isLessThan(20);
            assertThat(tok.display(50364)).isEqualTo("<|0.00|>");
            assertThat(tok.display(50259)).isEqualTo("<|en|>");
            assertThat(tok.decode(tok.encode("It's 42 degrees -- isn't it?\n"))).isEqualTo("It's 42 degrees -- isn't it?\n");
        }
    }

    @Test
    void theFilesMelFiltersAreWhispers() throws IOException {
        var npz = Fixtures.require("whisper/mel_filters.npz");
        try (var f = WhisperModelFile.open(Fixtures.require("whisper/for-tests-ggml-tiny.bin"))) {
            float[] stored = f.melFilters();
            float[] expected = Npz.read(npz).get("mel_80");
            assertThat(stored).hasSize(expected.length);
            for (int i = 0; i < stored.length; i++) assertThat(stored[i]).isCloseTo(expected[i], org.assertj.core.api.Assertions.within(1e-6f));
        }
    }

    @Test
    void refusesOtherFilesAndTruncatedOnes() throws IOException {
        Path text = tmp.resolve("not-a-model.bin");
        Files.writeString(text, "hello, not a model");
        assertThatThrownBy(() -> WhisperModelFile.open(text)).isInstanceOf(WhisperFormatException.class).hasMessageContaining("bad magic");
        byte[] real = Files.readAllBytes(Fixtures.require("whisper/for-tests-ggml-tiny.bin"));
        Path cut = tmp.resolve("cut.bin");
        Files.write(cut, Arrays.copyOf(real, 100_000));
        assertThatThrownBy(() -> WhisperModelFile.open(cut)).isInstanceOf(WhisperFormatException.class).hasMessageContaining("ends inside");
    }
}
