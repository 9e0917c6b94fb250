package dev.inferd.engine.tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Byte-level BPE ({@code tokenizer.ggml.model = gpt2}), as llama.cpp's BPE tokenizer: the
 * pre-tokenizer splits text into words, each word's UTF-8 bytes are written as GPT-2 characters, and
 * within a word the adjacent pair with the lowest merge rank ({@code tokenizer.ggml.merges} order)
 * merges first until no listed pair is left.
 */
final class ByteLevelBpeTokenizer extends VocabularyTokenizer {
    private final PreTokenizer preTokenizer;
    /** Merge rank by the merge's own text, "left right", which is how the file lists it. */
    private final Map<String, Integer> mergeRanks;

    ByteLevelBpeTokenizer(Vocabulary vocab, PreTokenizer preTokenizer, String[] merges) {
        super(vocab);
        this.preTokenizer = preTokenizer;
        this.mergeRanks = HashMap.newHashMap(merges.length);
        for (int rank = 0; rank < merges.length; rank++) mergeRanks.putIfAbsent(merges[rank], rank);
    }

    @Override
    byte[] piece(int id) {
        if (vocab.has(id, TokenAttr.USER_DEFINED)) return vocab.text(id).getBytes(StandardCharsets.UTF_8);
        if (vocab.has(id, TokenAttr.NORMAL)) return ByteUnicode.decode(vocab.text(id));
        if (vocab.has(id, TokenAttr.BYTE)) return new byte[] {SentencePieceTokenizer.parseByteToken(vocab.text(id))};
        return new byte[0];
    }

    @Override
    void encodeText(String text, boolean afterSpecial, IntList out) {
        for (String word : preTokenizer.split(text)) {
            encodeWord(ByteUnicode.encode(word), out);
        }
    }

    private void encodeWord(String word, IntList out) {
        if (preTokenizer.ignoresMerges()) {
            int whole = vocab.id(word);
            if (whole != Vocabulary.NONE) {
                out.add(whole);
                return;
            }
        }
        Symbols symbols = Symbols.ofCodePoints(word);
        var queue = new PriorityQueue<Bigram>((a, b) -> a.rank != b.rank
                ? Integer.compare(a.rank, b.rank)
                : Integer.compare(a.left, b.left));
        for (int i = 1; i < symbols.count(); i++) addBigram(word, symbols, i - 1, i, queue);

        while (!queue.isEmpty()) {
            Bigram bigram = queue.poll();
            int left = bigram.left;
            int right = bigram.right;
            // a symbol's start never moves, so unchanged lengths mean unchanged texts
            if (symbols.len[left] != bigram.leftLen || symbols.len[right] != bigram.rightLen) continue;
            symbols.mergeWithNext(left);
            addBigram(word, symbols, symbols.prev[left], left, queue);
            addBigram(word, symbols, left, symbols.next[left], queue);
        }

        for (int i = symbols.count() == 0 ? -1 : 0; i != -1; i = symbols.next[i]) {
            String piece = symbols.text(word, i);
            int id = vocab.id(piece);
            if (id != Vocabulary.NONE) {
                out.add(id);
                continue;
            }
            // llama.cpp's fallback: the piece's single-byte characters that are tokens, the rest dropped
            for (int c = 0; c < piece.length(); c++) {
                int single = piece.charAt(c) < 0x80 ? vocab.id(String.valueOf(piece.charAt(c))) : Vocabulary.NONE;
                if (single != Vocabulary.NONE) out.add(single);
            }
        }
    }

    private void addBigram(String word, Symbols symbols, int left, int right, PriorityQueue<Bigram> queue) {
        if (left == -1 || right == -1) return;
        String key = symbols.text(word, left) + " " + symbols.text(word, right);
        Integer rank = mergeRanks.get(key);
        if (rank == null) return;
        queue.add(new Bigram(left, right, rank, symbols.len[left], symbols.len[right]));
    }

    private record Bigram(int left, int right, int rank, int leftLen, int rightLen) {
    }
}
