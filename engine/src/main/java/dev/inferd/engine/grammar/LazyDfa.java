package dev.inferd.engine.grammar;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Determinizes the grammar's network on demand: a state is the set of positions reachable after the
 * bytes so far, and each transition is computed once, the first time it is taken, then read from an
 * array. Stacks are interned, so positions compare as integer pairs. Stacks deeper than
 * {@link #MAX_DEPTH} frames are not followed, which bounds the nesting of recursive rules.
 *
 * <p>All access goes through {@link #lock}: a compiled grammar is shared by every sequence using it.
 */
final class LazyDfa {
    /** Frames on the rule stack; a recursive schema nests at most this deep. */
    static final int MAX_DEPTH = 48;
    /** Past this many states the intern table starts over (states in use stay valid). */
    private static final int MAX_STATES = 50_000;

    final Object lock = new Object();
    final Nfa nfa;
    final DfaState dead;
    private final Map<Key, DfaState> states = new HashMap<>();
    private final List<Frame> frames = new ArrayList<>();
    private final Map<Long, Integer> frameIds = new HashMap<>();
    private DfaState start;

    /** One stack frame: a return state over the frame below (id 0 is the empty stack). */
    private record Frame(int returnState, int below, int depth, int bytesToComplete) {
    }

    private record Key(int[] positions, boolean complete) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && complete == k.complete && Arrays.equals(positions, k.positions);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(positions) * 31 + (complete ? 1 : 0);
        }
    }

    LazyDfa(Nfa nfa) {
        this.nfa = nfa;
        this.dead = new DfaState(new int[0], false, nfa.classCount, Nfa.UNREACHABLE);
        Arrays.fill(dead.next, dead);
        frames.add(new Frame(-1, -1, 0, 0));
        synchronized (lock) {
            start = closure(new int[] {nfa.ruleStart[0], 0});
        }
    }

    DfaState start() {
        synchronized (lock) {
            return start;
        }
    }

    /** The state after byte {@code b}; caller holds {@link #lock}. */
    DfaState next(DfaState s, int b) {
        int c = nfa.byteClass[b];
        DfaState t = s.next[c];
        if (t == null) {
            t = step(s, b);
            s.next[c] = t;
        }
        return t;
    }

    // Scratch for computing new states, reused: the automaton grows under the lock, one step at a time.
    private int[] work = new int[64];
    private long[] kept = new long[64];
    private final PositionSet seen = new PositionSet();

    private DfaState step(DfaState s, int b) {
        int[] pos = s.positions;
        int n = 0;
        for (int i = 0; i < pos.length; i += 2) {
            int[] edges = nfa.byteEdges[pos[i]];
            for (int e = 0; e < edges.length; e += 3) {
                if (b >= edges[e] && b <= edges[e + 1]) {
                    if (n + 2 > work.length) work = Arrays.copyOf(work, work.length * 2);
                    work[n++] = edges[e + 2];
                    work[n++] = pos[i + 1];
                }
            }
        }
        return n == 0 ? dead : closure(work, n);
    }

    private DfaState closure(int[] seeds) {
        if (seeds.length > work.length) work = Arrays.copyOf(work, seeds.length);
        System.arraycopy(seeds, 0, work, 0, seeds.length);
        return closure(work, seeds.length);
    }

    /**
     * Follows empty, call and return edges from the seed positions ({@code work[0..n)}, pairs of state
     * and stack), and interns the resulting state.
     */
    private DfaState closure(int[] seeds, int n) {
        seen.clear();
        int top = 0;
        int keptCount = 0;
        boolean complete = false;
        for (int i = 0; i < n; i += 2) {
            if (seen.add(seeds[i], seeds[i + 1])) {
                work[top++] = seeds[i];
                work[top++] = seeds[i + 1];
            }
        }
        while (top > 0) {
            int stack = work[--top];
            int q = work[--top];
            if (nfa.byteEdges[q].length > 0) {
                if (keptCount == kept.length) kept = Arrays.copyOf(kept, keptCount * 2);
                kept[keptCount++] = (long) q << 32 | stack;
            }
            for (int t : nfa.emptyEdges[q]) top = push(top, t, stack);
            int[] calls = nfa.callEdges[q];
            for (int i = 0; i < calls.length; i += 2) {
                if (frames.get(stack).depth >= MAX_DEPTH) continue;
                top = push(top, nfa.ruleStart[calls[i]], frame(calls[i + 1], stack));
            }
            if (nfa.endOfRule[q] >= 0) {
                if (stack == 0) {
                    complete = true;
                } else {
                    Frame f = frames.get(stack);
                    top = push(top, f.returnState, f.below);
                }
            }
        }
        Arrays.sort(kept, 0, keptCount);
        int[] positions = new int[keptCount * 2];
        int shortest = Nfa.UNREACHABLE;
        for (int i = 0; i < keptCount; i++) {
            positions[2 * i] = (int) (kept[i] >>> 32);
            positions[2 * i + 1] = (int) kept[i];
            long cost = (long) nfa.bytesToRuleEnd[positions[2 * i]] + frames.get(positions[2 * i + 1]).bytesToComplete;
            shortest = (int) Math.min(shortest, cost);
        }
        if (positions.length == 0 && !complete) return dead;
        var key = new Key(positions, complete);
        DfaState s = states.get(key);
        if (s == null) {
            if (states.size() >= MAX_STATES) states.clear();
            s = new DfaState(positions, complete, nfa.classCount, shortest);
            states.put(key, s);
        }
        return s;
    }

    private int push(int top, int q, int stack) {
        if (!seen.add(q, stack)) return top;
        if (top + 2 > work.length) work = Arrays.copyOf(work, work.length * 2);
        work[top++] = q;
        work[top++] = stack;
        return top;
    }

    /** A set of (state, stack) pairs, emptied in constant time by moving to a new generation. */
    private static final class PositionSet {
        private long[] keys = new long[256];
        private int[] generation = new int[256];
        private int current = 1;
        private int size;

        void clear() {
            current++;
            size = 0;
            if (current == Integer.MAX_VALUE) {
                Arrays.fill(generation, 0);
                current = 1;
            }
        }

        boolean add(int q, int stack) {
            if (2 * (size + 1) > keys.length) grow();
            long key = (long) q << 32 | (stack & 0xFFFFFFFFL);
            int mask = keys.length - 1;
            int i = (int) (mix(key) & mask);
            while (generation[i] == current) {
                if (keys[i] == key) return false;
                i = (i + 1) & mask;
            }
            generation[i] = current;
            keys[i] = key;
            size++;
            return true;
        }

        private void grow() {
            long[] oldKeys = keys;
            int[] oldGeneration = generation;
            keys = new long[oldKeys.length * 2];
            generation = new int[oldKeys.length * 2];
            int mask = keys.length - 1;
            for (int j = 0; j < oldKeys.length; j++) {
                if (oldGeneration[j] != current) continue;
                int i = (int) (mix(oldKeys[j]) & mask);
                while (generation[i] == current) i = (i + 1) & mask;
                generation[i] = current;
                keys[i] = oldKeys[j];
            }
        }

        private static long mix(long k) {
            k *= 0x9E3779B97F4A7C15L;
            return k ^ (k >>> 29);
        }
    }

    private int frame(int returnState, int below) {
        long key = (long) returnState << 32 | below;
        Integer id = frameIds.get(key);
        if (id == null) {
            id = frames.size();
            Frame under = frames.get(below);
            int cost = (int) Math.min(Nfa.UNREACHABLE, (long) nfa.bytesToRuleEnd[returnState] + under.bytesToComplete);
            frames.add(new Frame(returnState, below, under.depth + 1, cost));
            frameIds.put(key, id);
        }
        return id;
    }

    int stateCount() {
        synchronized (lock) {
            return states.size();
        }
    }
}
