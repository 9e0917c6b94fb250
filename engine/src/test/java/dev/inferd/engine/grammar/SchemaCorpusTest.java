package dev.inferd.engine.grammar;

import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.grammar.json.UnsupportedSchemaException;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Real-world schemas as agent frameworks send them (OpenAI guide examples, Pydantic through LangChain
 * and the OpenAI SDKs, LangChain4j, Spring AI, MCP servers, zod): each either compiles, or raises the
 * unsupported-keyword error naming the keyword and its JSON pointer. Files under {@code corpus/}:
 * {@code {"source", "expect": "compiles" | {"keyword", "pointer"}, "schema"}}.
 */
class SchemaCorpusTest {

    @TestFactory
    Stream<DynamicTest> eachSchemaCompilesOrNamesWhatItCannotEnforce() throws IOException, URISyntaxException {
        Path dir = Path.of(SchemaCorpusTest.class.getResource("corpus").toURI());
        List<Path> files;
        try (var list = Files.list(dir)) {
            files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(20);
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
            var entry = (Map<?, ?>) MiniJsonSchemas.parse(Files.readString(file));
            Object schema = entry.get("schema");
            if ("compiles".equals(entry.get("expect"))) {
                Grammar grammar = JsonSchemaCompiler.compile(schema);
                assertThat(grammar.matchesPrefix(new byte[] {'{'})).as("an object starts").isTrue();
            } else {
                var expect = (Map<?, ?>) entry.get("expect");
                assertThatThrownBy(() -> JsonSchemaCompiler.compile(schema))
                        .isInstanceOfSatisfying(UnsupportedSchemaException.class, e -> {
                            assertThat(e.keyword()).isEqualTo(expect.get("keyword"));
                            assertThat(e.pointer()).isEqualTo(expect.get("pointer"));
                        });
            }
        }));
    }
}
