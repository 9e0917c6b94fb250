package dev.inferd.engine.chat;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.chat.jinja.Template;
import dev.inferd.engine.chat.jinja.TemplateException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import dev.inferd.engine.FuzzBudget;
import net.jqwik.api.Provide;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Bounded property-based fuzzing of the Jinja renderer: template sources made of Jinja's pieces either
 * compile and render or fail with {@link TemplateException}; the models' real templates render any
 * conversation, however odd its roles and contents, or refuse it with {@link TemplateException}.
 * The tries are a short budget in {@code ./test}; {@code -Dinferd.fuzz.factor=N} multiplies them (see
 * {@link FuzzBudget}).
 */
@AddLifecycleHook(FuzzBudget.class)
class ChatTemplateFuzzTest {

    private static final List<String> PIECES = List.of("{{ ", " }}", "{% ", " %}", "{# ", " #}", "if ", "else",
            "endif", "for ", " in ", "endfor", "set ", "=", "messages", "message", "['role']", ".content", "|trim",
            "|length", "|tojson", "loop.index0", "range(3)", "(", ")", "[", "]", "{", "}", ",", ":", "'a'", "\"b\"",
            "1", "-1", "0.5", " + ", " ~ ", " and ", " not ", "==", "!=", " is defined", "raise_exception('x')",
            "namespace(x=1)", "macro m()", "endmacro", "m()", "bos_token", "add_generation_prompt", "\n", " ", "x",
            "{%- ", " -%}", "{{- ", " -}}", "none", "true", "[0]", "[1:]", "|join(',')", "|map(attribute='role')");

    @Property(tries = 300)
    void anySourceCompilesAndRendersOrFailsAsATemplateError(@ForAll("sources") String source) {
        Template template;
        try {
            template = Template.compile(source);
        } catch (TemplateException e) {
            return;
        }
        try {
            template.render(Map.of("messages", List.of(Map.of("role", "user", "content", "hi")),
                    "add_generation_prompt", true, "bos_token", "<s>"), java.time.Clock.systemUTC());
        } catch (TemplateException e) {
            // a template error: what a bad template may give
        }
    }

    @Property(tries = 100)
    void realTemplatesRenderAnyConversationOrRefuseIt(@ForAll("conversations") List<Map<String, Object>> messages)
            throws IOException {
        for (Path file : templates()) {
            var template = new JinjaChatTemplate(Files.readString(file), "<s>", "</s>");
            try {
                template.render(messages, true, Map.of());
            } catch (TemplateException e) {
                // the template refused the conversation: the server answers 400
            }
        }
    }

    @Provide
    Arbitrary<String> sources() {
        return Arbitraries.of(PIECES).list().ofMaxSize(30).map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<List<Map<String, Object>>> conversations() {
        Arbitrary<String> role = Arbitraries.of("system", "user", "assistant", "tool", "developer", "", "ROLE");
        Arbitrary<String> content = Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(20),
                Arbitraries.of("{{ 7*7 }}", "{% raw %}", "<|im_start|>", "</s>", "\u0000", "\ud800", "\n\n"));
        return Combinators.combine(role, content).as((r, c) -> Map.<String, Object>of("role", r, "content", c))
                .list().ofMaxSize(5);
    }

    private static List<Path> templates;

    private static synchronized List<Path> templates() throws IOException {
        if (templates == null) {
            Path dir = Fixtures.dir().resolve("chat-templates");
            if (!Files.isDirectory(dir)) {
                templates = List.of();
            } else {
                try (Stream<Path> files = Files.list(dir)) {
                    // a handful, so that the bounded run stays a few seconds
                    templates = files.filter(p -> p.toString().endsWith(".jinja")).sorted().limit(6).toList();
                }
            }
        }
        return templates;
    }
}
