package io.backpressure.spring.boot;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.OptionalInt;
import org.springframework.ai.chat.model.ChatModel;

/**
 * The retries a Spring AI {@link ChatModel} makes on its own, and the start-up check that none of
 * the application's models makes any.
 *
 * <p>Spring AI's OpenAI model sends through openai-java, which retries a failed call (a 429
 * included) on the calling thread, inside the one call the advisor admitted: {@code
 * spring.ai.openai.max-retries} defaults to 3, so the provider may see four requests for one
 * admission, the retries landing on the window that just refused the first. The advisor replaces
 * those retries (the spring-ai README). The effective value lives in the model's client ({@code
 * openAiClient}, its {@code ClientOptions.maxRetries()}), which the auto-configuration builds from
 * the properties, else in the model's default options ({@code getMaxRetries()}); both are read
 * reflectively because Spring AI exposes neither on the model. A model with neither is taken as it
 * is. Stateless.
 */
final class SpringAiModelRetries {
  private SpringAiModelRetries() {}

  /** How many times {@code model} retries a failed call on its own, when it can be read. */
  static OptionalInt of(ChatModel model) {
    Object client = field(model, "openAiClient");
    Object clientOptions = client == null ? null : field(client, "clientOptions");
    OptionalInt fromClient =
        clientOptions == null ? OptionalInt.empty() : number(clientOptions, "maxRetries");
    if (fromClient.isPresent()) {
      return fromClient;
    }
    try {
      Object options = model.getDefaultOptions();
      return options == null ? OptionalInt.empty() : number(options, "getMaxRetries");
    } catch (RuntimeException e) {
      return OptionalInt.empty();
    }
  }

  /**
   * Throws when any of {@code models} (by bean name) retries failed calls on its own.
   *
   * @throws IllegalStateException naming the bean, its retries and the properties that fix it
   */
  static void requireNone(Map<String, ChatModel> models) {
    models.forEach(
        (name, model) -> {
          OptionalInt retries = of(model);
          if (retries.isPresent() && retries.getAsInt() > 0) {
            throw new IllegalStateException(
                "chat model bean '"
                    + name
                    + "' ("
                    + model.getClass().getSimpleName()
                    + ") retries failed calls on its own (max-retries "
                    + retries.getAsInt()
                    + "): each retry is a provider "
                    + "call the Backpressure advisor did not admit, sent into the window that just answered 429. Set "
                    + "spring.ai.openai.max-retries=0 (a model you build: maxRetries(0) on its options), or "
                    + "backpressure.spring-ai.check-model-retries=false to keep them");
          }
        });
  }

  private static Object field(Object owner, String name) {
    for (Class<?> type = owner.getClass();
        type != null && type != Object.class;
        type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(owner);
      } catch (NoSuchFieldException e) {
        // look in the superclass
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null; // not readable: not checked
      }
    }
    return null;
  }

  private static OptionalInt number(Object owner, String method) {
    try {
      Method getter = owner.getClass().getMethod(method);
      Object value = getter.invoke(owner);
      return value instanceof Number n ? OptionalInt.of(n.intValue()) : OptionalInt.empty();
    } catch (ReflectiveOperationException | RuntimeException e) {
      return OptionalInt.empty();
    }
  }
}
