from textstats.words import split_words


def top_words(text, n, ignore=()):
    if n < 1:
        raise ValueError("n must be at least 1")
    counts = {}
    for word in split_words(text):
        if word not in ignore:
            counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]
