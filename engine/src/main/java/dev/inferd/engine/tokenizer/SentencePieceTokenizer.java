package dev.inferd.engine.tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.PriorityQueue;

/**
 * SentencePiece-style BPE ({@code tokenizer.ggml.model = llama}), as llama.cpp's SPM tokenizer:
 * spaces become {@code ▁} (a space is put first where {@code add_space_prefix} says), then adjacent
 * pieces merge, highest-scoring vocabulary entry first, until no pair forms an entry. A character that
 * is no entry is emitted as its UTF-8 bytes through the {@code <0xNN>} tokens.
 */
final class SentencePieceTokenizer extends VocabularyTokenizer {
    private static final char SPACE_MARK = '\u2581';

    private final int[] byteTokens = new int[256];

    SentencePieceTokenizer(Vocabulary vocab) {
        super(vocab);
        for (int b = 0; b < 256; b++) {
            int id = vocab.id("<0x%02X>".formatted(b));
            // like llama.cpp, fall back to a token spelled as the byte itself
            byteTokens[b] = id != Vocabulary.NONE ? id : vocab.id(String.valueOf((char) b));
        }
    }

    @Override
    byte[] piece(int id) {
        if (vocab.has(id, TokenAttr.USER_DEFINED)) return vocab.text(id).getBytes(StandardCharsets.UTF_8);
        if (vocab.has(id, TokenAttr.NORMAL)) {
            return vocab.text(id).replace(SPACE_MARK, ' ').getBytes(StandardCharsets.UTF_8);
        }
        if (vocab.has(id, TokenAttr.BYTE)) return new byte[] {parseByteToken(vocab.text(id))};
        return new byte[0]; // unused and undefined tokens print nothing
    }

    static byte parseByteToken(String text) {
        if (text.length() != 6 || !text.startsWith("<0x") || text.charAt(5) != '>') {
            throw new IllegalStateException("byte token '" + text + "' is not of the form <0xNN>");
        }
        return (byte) Integer.parseInt(text.substring(3, 5), 16);
    }

    @Override
    void encodeText(String raw, boolean afterSpecial, IntList out) {
        String text = (vocab.addSpacePrefix && afterSpecial ? " " + raw : raw).replace(' ', SPACE_MARK);
        Symbols symbols = Symbols.ofCodePoints(text);
        var queue = new PriorityQueue<Bigram>((a, b) -> a.score != b.score
                ? Float.compare(b.score, a.score)
                : Integer.compare(a.left, b.left));
        for (int i = 1; i < symbols.count(); i++) tryAddBigram(text, symbols, i - 1, i, queue);

        while (!queue.isEmpty()) {
            Bigram bigram = queue.poll();
            int left = bigram.left;
            int right = bigram.right;
            // skip pairs whose symbols changed since the pair was queued
            if (symbols.len[left] == 0 || symbols.len[right] == 0 || symbols.len[left] + symbols.len[right] != bigram.size) {
                continue;
            }
            symbols.mergeWithNext(left);
            tryAddBigram(text, symbols, symbols.prev[left], left, queue);
            tryAddBigram(text, symbols, left, symbols.next[left], queue);
        }

        for (int i = symbols.count() == 0 ? -1 : 0; i != -1; i = symbols.next[i]) {
            String piece = symbols.text(text, i);
            int id = vocab.id(piece);
            if (id != Vocabulary.NONE) {
                out.add(id);
            } else {
                for (byte b : piece.getBytes(StandardCharsets.UTF_8)) out.add(byteToken(b & 0xFF));
            }
        }
    }

    private int byteToken(int b) {
        int id = byteTokens[b];
        if (id != Vocabulary.NONE) return id;
        if (vocab.unknown != Vocabulary.NONE) return vocab.unknown;
        throw new IllegalStateException("the vocabulary has no token for byte 0x%02X and no unknown token".formatted(b));
    }

    private void tryAddBigram(String text, Symbols symbols, int left, int right, PriorityQueue<Bigram> queue) {
        if (left == -1 || right == -1) return;
        int start = symbols.start[left];
        int size = symbols.len[left] + symbols.len[right];
        int id = vocab.id(text.substring(start, start + size));
        if (id == Vocabulary.NONE) return;
        queue.add(new Bigram(left, right, vocab.score(id), size));
    }

    private record Bigram(int left, int right, float score, int size) {
    }
}
