/**
 * The gate inside Temporal: an activity asks the gate, and a deferral ends the activity at once
 * (its slot freed) and waits on a durable timer — with the workflow helper {@link
 * io.backpressure.temporal.Backpressure}, the worker interceptor {@link
 * io.backpressure.temporal.BackpressureInterceptor} that needs no workflow change, or the server's
 * retry timer. The activity-side gate is {@link io.backpressure.temporal.ActivityGate}.
 */
package io.backpressure.temporal;
