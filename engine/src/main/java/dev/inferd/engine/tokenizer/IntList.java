package dev.inferd.engine.tokenizer;

import java.util.Arrays;

/** A growable list of ints, so encoding does not box every token id. */
final class IntList {
    private int[] items = new int[16];
    private int size;

    void add(int value) {
        if (size == items.length) items = Arrays.copyOf(items, size * 2);
        items[size++] = value;
    }

    int size() {
        return size;
    }

    int[] toArray() {
        return Arrays.copyOf(items, size);
    }
}
