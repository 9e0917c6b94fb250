package dev.inferd.engine.grammar;

import java.util.List;

/**
 * A compiled grammar: rules of byte {@link Expr}essions, rule 0 the whole output. Immutable as seen
 * from outside and safe to share between sequences and threads (its automaton grows on first use
 * under a lock), so compile once and cache ({@code grammar.json.JsonSchemaCompiler} and {@code GrammarCache}).
 * Each sequence decodes with its own {@link #matcher}.
 */
public final class Grammar {
    private final String description;
    private final LazyDfa dfa;

    /**
     * @param rules       rule 0 matches the whole output; {@link Expr.Call} refers to rules by index
     * @param description a short name for messages and logs (the schema's title, say)
     */
    public Grammar(List<Expr> rules, String description) {
        if (rules.isEmpty()) throw new IllegalArgumentException("a grammar needs at least one rule");
        this.description = description;
        this.dfa = new LazyDfa(Nfa.build(rules));
    }

    /** A grammar of one rule. */
    public static Grammar of(Expr expr, String description) {
        return new Grammar(List.of(expr), description);
    }

    /** A new matcher at the start of the output, masking tokens of {@code vocabulary}. */
    public GrammarMatcher matcher(TokenVocabulary vocabulary) {
        return new GrammarMatcher(this, vocabulary, dfa.start());
    }

    /** Whether {@code bytes} is a complete output. */
    public boolean matches(byte[] bytes) {
        DfaState s = run(bytes);
        return s.complete;
    }

    /** Whether {@code bytes} starts at least one complete output. */
    public boolean matchesPrefix(byte[] bytes) {
        return !run(bytes).isDead();
    }

    private DfaState run(byte[] bytes) {
        synchronized (dfa.lock) {
            DfaState s = dfa.start();
            for (byte b : bytes) {
                s = dfa.next(s, b & 0xFF);
                if (s.isDead()) break;
            }
            return s;
        }
    }

    LazyDfa dfa() {
        return dfa;
    }

    /** States of the network (a measure of the grammar's size). */
    public int stateCount() {
        return dfa.nfa.stateCount();
    }

    @Override
    public String toString() {
        return "Grammar[" + description + ", " + stateCount() + " states]";
    }
}
