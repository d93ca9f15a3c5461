/**
 * Spring AI behind the gate: {@link io.backpressure.springai.BackpressureAdvisor}, a {@code
 * ChatClient} advisor that admits every call and releases it with the reply's usage.
 */
package io.backpressure.springai;
