/**
 * Constrained decoding: grammars over bytes and the token masks that keep a sequence inside one.
 *
 * <p>A {@link dev.inferd.engine.grammar.Grammar} (compiled once, immutable, shared and cached) admits
 * exactly the valid outputs as UTF-8 bytes, so a character split across tokens is handled like any
 * other text. Each sequence gets a {@link dev.inferd.engine.grammar.GrammarMatcher}; at every step the
 * scheduler asks it for the allowed tokens ({@code fillMask}), applies them to the logits
 * ({@link dev.inferd.engine.grammar.TokenMasks#apply}), samples, and reports the chosen token
 * ({@code accept}). End-of-generation tokens are allowed only once the output is complete and are the
 * only choice once nothing else can follow. Masks come from a walk of a trie over the vocabulary's
 * token bytes ({@link dev.inferd.engine.grammar.TokenVocabulary}, one per tokenizer) through a lazily
 * determinized automaton, and are cached per automaton state, so a state seen before costs a copy.
 *
 * <p>{@code grammar.json} compiles JSON Schema (and "any JSON object/value") into grammars.
 */
package dev.inferd.engine.grammar;
