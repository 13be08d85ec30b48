"""Timing of torch peers the way kk3tune's graph mode times a kernel: N calls in a CUDA graph."""
import statistics

import torch


def graph_time_us(fn, calls=20, reps=25):
    """Median per-call time of `fn` replayed from a CUDA graph of `calls` calls, in microseconds."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(times)


def graph_time_auto_us(fn, target_us=200.0, reps=25, max_calls=1000):
    """graph_time_us with the calls per graph chosen as kk3tune's graph mode chooses its launches
    per sample: enough for one replay to last about target_us (4 to max_calls), so that a short
    call does not carry a share of the replay's own launch. Returns (median us per call, calls)."""
    estimate = graph_time_us(fn, calls=4, reps=3)
    calls = int(min(max_calls, max(4, round(target_us / max(estimate, 1e-3)))))
    return graph_time_us(fn, calls=calls, reps=reps), calls
