package dev.inferd.engine.tokenizer;

import dev.inferd.engine.gguf.GGUFFormatException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Word splits of each pre-tokenizer, checked by hand against the expressions in llama.cpp (and,
 * for Llama 3, against the token ids in the comment of llama.cpp's test-tokenizer-0).
 */
class PreTokenizerTest {

    @Test
    void gpt2SplitsContractionsLowercaseOnlyAndKeepsOneSpaceBeforeWords() {
        assertThat(PreTokenizer.GPT2.split("I've HE'S   Hello"))
                .containsExactly("I", "'ve", " HE", "'", "S", "  ", " Hello");
        assertThat(PreTokenizer.GPT2.split("w048 7tuijk")).containsExactly("w", "048", " 7", "tuijk");
        // a lone newline before text is not matched by any branch and stays a piece of its own
        assertThat(PreTokenizer.GPT2.split("a\n\nb")).containsExactly("a", "\n", "\n", "b");
        assertThat(PreTokenizer.GPT2.split("Hello, world!!! ")).containsExactly("Hello", ",", " world", "!!!", " ");
    }

    @Test
    void llama3GroupsDigitsByThreeAndFoldsContractionCase() {
        assertThat(PreTokenizer.LLAMA3.split("Hello, y'all! How are you 😁 ?我想在apple工作1314151天～"))
                .containsExactly("Hello", ",", " y", "'all", "!", " How", " are", " you", " 😁", " ?",
                        "我想在apple工作", "131", "415", "1", "天", "～");
        assertThat(PreTokenizer.LLAMA3.split("HE'S I'M we'RE")).containsExactly("HE", "'S", " I", "'M", " we", "'RE");
        assertThat(PreTokenizer.LLAMA3.split("3333333 x 12")).containsExactly("333", "333", "3", " x", " ", "12");
    }

    @Test
    void llama3KeepsNewlinesWithPunctuationAndWhitespaceRuns() {
        assertThat(PreTokenizer.LLAMA3.split("\n =")).containsExactly("\n", " =");
        assertThat(PreTokenizer.LLAMA3.split("\t\n")).containsExactly("\t\n");
        assertThat(PreTokenizer.LLAMA3.split("hello!\n\nworld")).containsExactly("hello", "!\n\n", "world");
        assertThat(PreTokenizer.LLAMA3.split("a  \n  b")).containsExactly("a", "  \n", " ", " b");
        assertThat(PreTokenizer.LLAMA3.split("   Hello")).containsExactly("  ", " Hello");
        assertThat(PreTokenizer.LLAMA3.split("x   ")).containsExactly("x", "   ");
    }

    @Test
    void qwen2PutsEveryDigitInItsOwnWord() {
        assertThat(PreTokenizer.QWEN2.split("1314151天")).containsExactly("1", "3", "1", "4", "1", "5", "1", "天");
        assertThat(PreTokenizer.QWEN2.split("Hello world 123")).containsExactly("Hello", " world", " ", "1", "2", "3");
        // punctuation other than a newline may lead a word, as a space does
        assertThat(PreTokenizer.QWEN2.split("it's 工作，好")).containsExactly("it", "'s", " 工作", "，好");
        assertThat(PreTokenizer.QWEN2.split("a\n\nb")).containsExactly("a", "\n\n", "b");
    }

    @Test
    void tekkenSplitsWordsAtCaseChangesAndDigitsOneByOne() {
        assertThat(PreTokenizer.TEKKEN.split("HelloWorld McDonald's 12345"))
                .containsExactly("Hello", "World", " Mc", "Donald", "'s", " ", "1", "2", "3", "4", "5");
        // an upper-case run keeps no lower-case tail; the apostrophe leads the next word
        assertThat(PreTokenizer.TEKKEN.split("DON'T stop\n\nnow")).containsExactly("DON", "'T", " stop", "\n\n", "now");
        assertThat(PreTokenizer.TEKKEN.split("path/to\nx")).containsExactly("path", "/to", "\n", "x");
        assertThat(PreTokenizer.forName("tekken")).isEqualTo(PreTokenizer.TEKKEN);
        assertThat(PreTokenizer.TEKKEN.ignoresMerges()).isTrue();
        assertThat(PreTokenizer.TEKKEN.addsBosByDefault()).isTrue();
    }

    @Test
    void gpt4oKeepsContractionsWithTheirWordAndDigitsByThree() {
        assertThat(PreTokenizer.GPT4O.split("HelloWorld McDonald's 12345"))
                .containsExactly("Hello", "World", " Mc", "Donald's", " ", "123", "45");
        assertThat(PreTokenizer.GPT4O.split(" DON'T we're")).containsExactly(" DON'T", " we're");
        assertThat(PreTokenizer.GPT4O.split("a!!\n\nb")).containsExactly("a", "!!\n\n", "b");
        assertThat(PreTokenizer.forName("gpt-4o")).isEqualTo(PreTokenizer.GPT4O);
        assertThat(PreTokenizer.forName("deepseek-r1-qwen")).isEqualTo(PreTokenizer.QWEN2);
    }

    @Test
    void smollmSplitsDigitsFirstThenAppliesGpt2ToEachPiece() {
        assertThat(PreTokenizer.SMOLLM.split("a 12b")).containsExactly("a", " ", "1", "2", "b");
        assertThat(PreTokenizer.SMOLLM.split("I've 3 cats")).containsExactly("I", "'ve", " ", "3", " cats");
        assertThat(PreTokenizer.SMOLLM.split("x\n\ny")).containsExactly("x", "\n", "\n", "y");
    }

    @Test
    void defaultSplitsPunctuationBeforeWords() {
        assertThat(PreTokenizer.DEFAULT.split("Hello, world!")).containsExactly("Hello", ",", " world", "!");
        assertThat(PreTokenizer.DEFAULT.split("a 12345")).containsExactly("a", " ", "123", "45");
    }

    @Test
    void piecesAlwaysConcatenateToTheInput() {
        String text = "  Mixed\t\tinput — with ‘quotes’, 数字 ١٢٣ and\u00a0nbsp\r\n\r\n  end  ";
        for (PreTokenizer pre : PreTokenizer.values()) {
            assertThat(String.join("", pre.split(text))).as(pre.name()).isEqualTo(text);
        }
    }

    @Test
    void namesMapAsInLlamaCpp() {
        assertThat(PreTokenizer.forName("gpt-2")).isEqualTo(PreTokenizer.GPT2);
        assertThat(PreTokenizer.forName("llama-bpe")).isEqualTo(PreTokenizer.LLAMA3);
        assertThat(PreTokenizer.forName("qwen2")).isEqualTo(PreTokenizer.QWEN2);
        assertThat(PreTokenizer.forName("smollm")).isEqualTo(PreTokenizer.SMOLLM);
        assertThat(PreTokenizer.forName(null)).isEqualTo(PreTokenizer.DEFAULT);
        assertThat(PreTokenizer.LLAMA3.ignoresMerges()).isTrue();
        assertThat(PreTokenizer.QWEN2.ignoresMerges()).isFalse();
        assertThatThrownBy(() -> PreTokenizer.forName("no-such-pre"))
                .isInstanceOf(GGUFFormatException.class).hasMessageContaining("no-such-pre");
    }
}
