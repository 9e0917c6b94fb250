package dev.inferd.engine.grammar;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
    private static final int MAX_STATES = 200_000;

    final Object lock = new Object();
    final Nfa nfa;
    final DfaState dead;
    private final Map<Key, DfaState> states = new HashMap<>();
    private final List<Frame> frames = new ArrayList<>();
    private final Map<Long, Integer> frameIds = new HashMap<>();
    private DfaState start;

    /** One stack frame: a return state over the frame below (id 0 is the empty stack). */
    private record Frame(int returnState, int below, int depth) {
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
        this.dead = new DfaState(new int[0], false, nfa.classCount);
        Arrays.fill(dead.next, dead);
        frames.add(new Frame(-1, -1, 0));
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

    private DfaState step(DfaState s, int b) {
        int[] pos = s.positions;
        var seeds = new Nfa.Ints();
        for (int i = 0; i < pos.length; i += 2) {
            int[] edges = nfa.byteEdges[pos[i]];
            for (int e = 0; e < edges.length; e += 3) {
                if (b >= edges[e] && b <= edges[e + 1]) {
                    seeds.add(edges[e + 2]);
                    seeds.add(pos[i + 1]);
                }
            }
        }
        int[] seedArray = seeds.toArray();
        return seedArray.length == 0 ? dead : closure(seedArray);
    }

    /** Follows empty, call and return edges from the seed positions, and interns the resulting state. */
    private DfaState closure(int[] seeds) {
        var work = new ArrayDeque<long[]>();
        Set<Long> seen = new HashSet<>();
        var kept = new ArrayList<Long>();
        boolean complete = false;
        for (int i = 0; i < seeds.length; i += 2) push(work, seen, seeds[i], seeds[i + 1]);
        while (!work.isEmpty()) {
            long[] p = work.pop();
            int q = (int) p[0];
            int stack = (int) p[1];
            if (nfa.byteEdges[q].length > 0) kept.add(p[0] << 32 | p[1]);
            for (int t : nfa.emptyEdges[q]) push(work, seen, t, stack);
            int[] calls = nfa.callEdges[q];
            for (int i = 0; i < calls.length; i += 2) {
                Frame below = frames.get(stack);
                if (below.depth >= MAX_DEPTH) continue;
                push(work, seen, nfa.ruleStart[calls[i]], frame(calls[i + 1], stack));
            }
            if (nfa.endOfRule[q] >= 0) {
                if (stack == 0) {
                    complete = true;
                } else {
                    Frame top = frames.get(stack);
                    push(work, seen, top.returnState, top.below);
                }
            }
        }
        kept.sort(null);
        int[] positions = new int[kept.size() * 2];
        for (int i = 0; i < kept.size(); i++) {
            long v = kept.get(i);
            positions[2 * i] = (int) (v >>> 32);
            positions[2 * i + 1] = (int) v;
        }
        if (positions.length == 0 && !complete) return dead;
        var key = new Key(positions, complete);
        DfaState s = states.get(key);
        if (s == null) {
            if (states.size() >= MAX_STATES) states.clear();
            s = new DfaState(positions, complete, nfa.classCount);
            states.put(key, s);
        }
        return s;
    }

    private static void push(ArrayDeque<long[]> work, Set<Long> seen, int q, int stack) {
        long key = (long) q << 32 | stack;
        if (seen.add(key)) work.push(new long[] {q, stack});
    }

    private int frame(int returnState, int below) {
        long key = (long) returnState << 32 | below;
        Integer id = frameIds.get(key);
        if (id == null) {
            id = frames.size();
            frames.add(new Frame(returnState, below, frames.get(below).depth + 1));
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
