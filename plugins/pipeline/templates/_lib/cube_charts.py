"""cube_charts — result files the console renders: PNG, ECharts options, markdown."""
import matplotlib

matplotlib.use("Agg")  # no display on a task's machine


def confusion_png(path, matrix, labels, title):
    import matplotlib.pyplot as plt
    n = len(labels)
    size = min(12, max(4, 0.6 * n + 2))
    fig, ax = plt.subplots(figsize=(size, size * 0.85), dpi=100)
    image = ax.imshow(matrix, cmap="Blues")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    ax.set_xticks(range(n), labels=[str(x) for x in labels], rotation=45, ha="right")
    ax.set_yticks(range(n), labels=[str(x) for x in labels])
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(title)
    threshold = matrix.max() / 2 if matrix.size else 0
    for i in range(n):
        for j in range(n):
            ax.text(j, i, int(matrix[i, j]), ha="center", va="center",
                    color="white" if matrix[i, j] > threshold else "black")
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)


def confusion_echarts(matrix, labels, title):
    """An ECharts heatmap option (rows: true label, columns: predicted)."""
    names = [str(x) for x in labels]
    n = len(names)
    data = [[j, i, int(matrix[i, j])] for i in range(n) for j in range(n)]
    return {
        "title": {"text": title, "left": "center"},
        "tooltip": {"position": "top"},
        "grid": {"top": 50, "bottom": 100, "left": 100, "right": 30},
        "xAxis": {"type": "category", "name": "predicted", "nameLocation": "middle", "nameGap": 30,
                  "data": names, "splitArea": {"show": True}},
        "yAxis": {"type": "category", "name": "true", "nameLocation": "middle", "nameGap": 60,
                  "data": names, "inverse": True, "splitArea": {"show": True}},
        "visualMap": {"min": 0, "max": int(matrix.max()) if matrix.size else 0, "calculable": True,
                      "orient": "horizontal", "left": "center", "bottom": 10},
        "series": [{"name": "count", "type": "heatmap", "data": data,
                    "label": {"show": True, "formatter": "{@[2]}"}}],
    }


def markdown_table(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(_cell(x) for x in row) + " |")
    return "\n".join(lines) + "\n"


def _cell(value):
    if isinstance(value, float):
        return "%.4f" % value
    return str(value).replace("|", "\\|")
