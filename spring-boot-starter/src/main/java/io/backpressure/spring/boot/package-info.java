/**
 * Spring Boot auto-configuration: gates built from {@code backpressure.*} properties ({@link
 * io.backpressure.spring.boot.BackpressureProperties}), in memory or on Redis, with metrics, the
 * Spring AI advisor, the LangChain4j decorators and the Temporal interceptor when their libraries
 * are present. Applications inject a {@code Gate} (one bean per target) or {@link
 * io.backpressure.spring.boot.BackpressureGates}.
 */
package io.backpressure.spring.boot;
