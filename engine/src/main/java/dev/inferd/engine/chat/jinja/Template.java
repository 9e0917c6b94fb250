package dev.inferd.engine.chat.jinja;

import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * A compiled Jinja template, rendered the way Hugging Face transformers renders chat templates
 * ({@code trim_blocks}, {@code lstrip_blocks}, loop controls, its {@code tojson},
 * {@code raise_exception} and {@code strftime_now}). Immutable: compile once, render from many
 * threads.
 */
public final class Template {
    private final List<Node> body;

    private Template(List<Node> body) {
        this.body = body;
    }

    /** Parses {@code source}; syntax errors are {@link TemplateException}s naming the line. */
    public static Template compile(String source) {
        return new Template(new Parser(new Lexer(source).tokenize()).parseTemplate());
    }

    public String render(Map<String, ?> variables) {
        return render(variables, Clock.systemDefaultZone());
    }

    /**
     * @param variables the template's variables; they hide globals of the same name
     * @param clock what {@code strftime_now} reads
     * @throws TemplateRaisedException when the template calls {@code raise_exception}
     * @throws TemplateException for any other failure, with the template line
     */
    public String render(Map<String, ?> variables, Clock clock) {
        Scope globals = new Scope(null);
        Globals.create(clock).forEach(globals::set);
        variables.forEach(globals::set);
        var out = new StringBuilder();
        new Interpreter().execute(body, new Scope(globals), out);
        return out.toString();
    }
}
