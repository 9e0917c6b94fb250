package dev.inferd.engine.tokenizer;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGUFFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** BOS/EOS, special-token parsing, end-of-generation and token bytes on the real vocabularies. */
class SpecialTokensTest {
    private static GGUFFile spmFile;
    private static GGUFFile phi3File;
    private static GGUFFile gpt2File;
    private static Tokenizer spm;
    private static Tokenizer phi3;
    private static Tokenizer gpt2;

    @BeforeAll
    static void load() throws Exception {
        spmFile = GGUFFile.open(Fixtures.require("tokenizers/ggml-vocab-llama-spm.gguf"));
        phi3File = GGUFFile.open(Fixtures.require("tokenizers/ggml-vocab-phi-3.gguf"));
        gpt2File = GGUFFile.open(Fixtures.require("tokenizers/ggml-vocab-gpt-2.gguf"));
        spm = Tokenizer.fromGGUF(spmFile);
        phi3 = Tokenizer.fromGGUF(phi3File);
        gpt2 = Tokenizer.fromGGUF(gpt2File);
    }

    @AfterAll
    static void close() {
        for (GGUFFile f : new GGUFFile[] {spmFile, phi3File, gpt2File}) {
            if (f != null) f.close();
        }
    }

    @Test
    void sentencePieceAddsBosWhenAskedAndOnlyThen() {
        assertThat(spm.addsBos()).isTrue();
        assertThat(spm.encode("Hello world", true, false)).containsExactly(1, 15043, 3186);
        assertThat(spm.encode("Hello world", false, false)).containsExactly(15043, 3186);
        assertThat(spm.encode("", true, false)).containsExactly(1);
        assertThat(spm.encode("", false, false)).isEmpty();
    }

    @Test
    void gpt2AddsNoBosUnlessTheFileAsks() {
        assertThat(gpt2.addsBos()).isFalse();
        assertThat(gpt2.bos()).isEqualTo(50256);
        assertThat(gpt2.encode("Hello world", true, false)).containsExactly(15496, 995);
    }

    @Test
    void decodeDropsThePrefixSpaceOnlyAfterBos() {
        assertThat(spm.decode(new int[] {1, 15043, 3186})).isEqualTo("Hello world");
        // a continuation (no BOS) keeps its leading space: it separates it from the prompt
        assertThat(spm.decode(new int[] {15043, 3186})).isEqualTo(" Hello world");
        assertThat(spm.decode(new int[] {1, 29871, 15043})).isEqualTo(" Hello");
    }

    @Test
    void parseSpecialTurnsSpecialTextIntoTheToken() {
        assertThat(gpt2.encode("<|endoftext|>", false, true)).containsExactly(50256);
        assertThat(gpt2.encode("a<|endoftext|>b", false, true)).containsExactly(64, 50256, 65);
        int[] asText = gpt2.encode("<|endoftext|>", false, false);
        assertThat(asText).hasSizeGreaterThan(1).doesNotContain(50256);
        assertThat(gpt2.decode(asText)).isEqualTo("<|endoftext|>");

        // after a special token SentencePiece starts a new word: the text gets the space prefix again
        assertThat(spm.encode("<s>Hello", false, true)).containsExactly(1, 15043);
        assertThat(spm.encode("<s>Hello", false, false)).doesNotContain(1);
        assertThat(spm.decode(spm.encode("<s>Hello", true, false))).isEqualTo("<s>Hello");
    }

    @Test
    void phi3SpecialTokensSwallowTheWhitespaceAfterThemAsInLlamaCpp() {
        int[] hi = phi3.encode("Hi", false, false);
        int[] chat = phi3.encode("<|user|>\nHi<|end|>\n<|assistant|>\n", false, true);
        int[] expected = IntStream.concat(IntStream.concat(IntStream.of(32010), IntStream.of(hi)), IntStream.of(32007, 32001)).toArray();
        assertThat(chat).containsExactly(expected);
    }

    @Test
    void longestSpecialTokenWins() {
        // "<|end|>" must not be cut out of "<|endoftext|>"
        assertThat(phi3.encode("x<|endoftext|>", false, true)).endsWith(32000);
    }

    @Test
    void endOfGenerationCoversEosEotAndNamedControlTokens() {
        assertThat(phi3.eos()).isEqualTo(32000);
        assertThat(phi3.isEndOfGeneration(32000)).isTrue(); // <|endoftext|>, eos
        assertThat(phi3.isEndOfGeneration(32007)).isTrue(); // <|end|>
        assertThat(phi3.isEndOfGeneration(2)).isTrue();     // </s>
        assertThat(phi3.isEndOfGeneration(32010)).isFalse(); // <|user|>
        assertThat(phi3.isEndOfGeneration(1)).isFalse();
        assertThat(phi3.isEndOfGeneration(-1)).isFalse();
        assertThat(gpt2.isEndOfGeneration(50256)).isTrue();
        assertThat(gpt2.isEndOfGeneration(198)).isFalse();
        assertThat(spm.isEndOfGeneration(2)).isTrue();
    }

    @Test
    void controlTokensAreSilent() {
        assertThat(phi3.isControl(32010)).isTrue();
        assertThat(phi3.isControl(2)).isTrue(); // user-defined </s> becomes control because it ends generation
        assertThat(phi3.isControl(15043)).isFalse();
        assertThat(phi3.tokenBytes(32010)).isEmpty();
        assertThat(spm.tokenBytes(1)).isEmpty();
        assertThat(spm.tokenBytes(0)).isEmpty(); // <unk>
        assertThat(phi3.tokenText(32010)).isEqualTo("<|user|>");
        assertThat(phi3.decode(new int[] {1, 32010, 15043, 32007})).isEqualTo(" Hello");
    }

    @Test
    void tokenBytesAreTheExactOutputBytes() {
        assertThat(spm.tokenText(15043)).isEqualTo("▁Hello");
        assertThat(spm.tokenBytes(15043)).isEqualTo(" Hello".getBytes(StandardCharsets.UTF_8));
        assertThat(gpt2.tokenText(18435)).isEqualTo("ĠHello");
        assertThat(gpt2.tokenBytes(18435)).isEqualTo(" Hello".getBytes(StandardCharsets.UTF_8));
        assertThat(gpt2.tokenBytes(198)).containsExactly('\n');
    }

    @Test
    void byteFallbackTokensCarryOneByteEach() {
        // 🦙 is not in the llama vocabulary: its four UTF-8 bytes come out as <0xF0><0x9F><0xA6><0x99>
        int[] ids = spm.encode("🦙", false, false);
        assertThat(ids).containsExactly(29871, 243, 162, 169, 156);
        assertThat(spm.tokenText(243)).isEqualTo("<0xF0>");
        assertThat(spm.tokenBytes(243)).containsExactly((byte) 0xF0);
        assertThat(spm.tokenBytes(3 + 0x0A)).containsExactly('\n');
        assertThat(spm.decode(new int[] {243, 162})).isEqualTo("\uFFFD"); // a partial character alone
        assertThat(spm.decode(ids)).isEqualTo(" 🦙");
    }

    @Test
    void rejectsIdsOutsideTheVocabulary() {
        assertThatThrownBy(() -> spm.tokenBytes(32000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> gpt2.decode(new int[] {-5})).isInstanceOf(IllegalArgumentException.class);
    }
}
