package dev.inferd.engine.chat.jinja;

/**
 * The template itself refused to render, through {@code raise_exception(message)}: typically the
 * conversation breaks a rule of the model (a system role it does not support, roles that do not
 * alternate). The message is the template's own, unchanged, so it can be shown to the client.
 */
public final class TemplateRaisedException extends TemplateException {

    public TemplateRaisedException(String message, int line) {
        super(message, line);
    }

    @Override
    public String getMessage() {
        return reason();
    }

    @Override
    TemplateRaisedException atLine(int line) {
        return line() > 0 || line <= 0 ? this : new TemplateRaisedException(reason(), line);
    }
}
