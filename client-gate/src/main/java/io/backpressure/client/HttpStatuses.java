package io.backpressure.client;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP status an SDK's exception exposes, read without depending on the SDK: the first public
 * no-argument method of {@link #ACCESSORS} that the exception's class has, returning an {@code int}
 * (google-genai's {@code ApiException.code()}, the AWS SDK's {@code
 * SdkServiceException.statusCode()}, openai-java's {@code OpenAIServiceException.statusCode()}) or
 * an object whose public {@code value()} is one (Spring's {@code HttpStatusCode}). The accessor is
 * looked up once per class. Thread-safe.
 */
final class HttpStatuses {
  /** The accessor names tried, in order. */
  static final List<String> ACCESSORS = List.of("statusCode", "code", "getStatusCode");

  /** Returned when the exception exposes no status. */
  static final int NONE = -1;

  private static final ClassValue<Optional<Method>> ACCESSOR =
      new ClassValue<>() {
        @Override
        protected Optional<Method> computeValue(Class<?> type) {
          for (String name : ACCESSORS) {
            Method method = publicMethod(type, name);
            if (method != null) {
              return Optional.of(method);
            }
          }
          return Optional.empty();
        }
      };

  private static final ClassValue<Optional<Method>> VALUE =
      new ClassValue<>() {
        @Override
        protected Optional<Method> computeValue(Class<?> type) {
          Method method = publicMethod(type, "value");
          return method != null && method.getReturnType() == int.class
              ? Optional.of(method)
              : Optional.empty();
        }
      };

  private HttpStatuses() {}

  /**
   * The HTTP status {@code failure} exposes (itself, not its causes), or {@link #NONE} when it has
   * no such accessor, the accessor fails, or it answers something that is not a status in [100,
   * 599].
   */
  static int of(Throwable failure) {
    Method accessor = ACCESSOR.get(failure.getClass()).orElse(null);
    if (accessor == null) {
      return NONE;
    }
    Object answer = invoke(accessor, failure);
    if (answer != null && !(answer instanceof Integer)) {
      Method value = VALUE.get(answer.getClass()).orElse(null);
      answer = value == null ? null : invoke(value, answer);
    }
    return answer instanceof Integer status && status >= 100 && status <= 599 ? status : NONE;
  }

  /**
   * {@code type}'s public no-argument method {@code name}, found through a public class or
   * interface so that it can be invoked (a public method of a private subclass is reached through
   * the public type that declares it), or null.
   */
  private static @Nullable Method publicMethod(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      Method method = declared(c, name);
      if (method != null) {
        return method;
      }
      Method inherited = fromInterfaces(c, name);
      if (inherited != null) {
        return inherited;
      }
    }
    return null;
  }

  private static @Nullable Method fromInterfaces(Class<?> type, String name) {
    for (Class<?> face : type.getInterfaces()) {
      Method method = declared(face, name);
      if (method == null) {
        method = fromInterfaces(face, name);
      }
      if (method != null) {
        return method;
      }
    }
    return null;
  }

  private static @Nullable Method declared(Class<?> type, String name) {
    if (!Modifier.isPublic(type.getModifiers())) {
      return null;
    }
    try {
      Method method = type.getDeclaredMethod(name);
      return Modifier.isPublic(method.getModifiers())
              && !Modifier.isStatic(method.getModifiers())
              && method.getReturnType() != void.class
          ? method
          : null;
    } catch (NoSuchMethodException | SecurityException | LinkageError e) {
      return null;
    }
  }

  private static @Nullable Object invoke(Method method, Object target) {
    try {
      return method.invoke(target);
    } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
      return null;
    }
  }
}
