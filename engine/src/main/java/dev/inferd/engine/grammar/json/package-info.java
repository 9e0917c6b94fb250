/**
 * JSON Schema to {@link dev.inferd.engine.grammar.Grammar}: {@link dev.inferd.engine.grammar.json.JsonSchemaCompiler}
 * (what is supported, and the choices that narrow output), {@link dev.inferd.engine.grammar.json.GrammarCache}
 * (compiled grammars by canonical schema text), {@link dev.inferd.engine.grammar.json.UnsupportedSchemaException}
 * (keyword and JSON pointer of what cannot be enforced: a 400 for the server).
 */
package dev.inferd.engine.grammar.json;
