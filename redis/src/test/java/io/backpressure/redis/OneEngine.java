package io.backpressure.redis;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Keeps the tests a class declares or inherits to one test engine: the others do not discover them
 * ({@link OneEngineFilter}). It lets one suite written for two engines run as two classes, each in
 * a test JVM of its own, where one class would run its engines one after the other.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface OneEngine {
  /** The engine's id: {@code junit-jupiter} or {@code jqwik}. */
  String value();
}
