// SPDX-License-Identifier: MIT
#include "ui/state/viewproperties.h"

#include "core/attention.h"
#include "core/pipeline.h"
#include "core/types.h"

#include <QLocale>

#include <cmath>

namespace poslab::ui {
namespace {

/// Largest attention matrix side (the workbench's position limit).
constexpr int maxAttentionSize = 1 << 20;

/// A property of plain member @p member: kind, range and the member read and written as a QVariant of type T
/// (an enum member is stored as its index).
template <typename T, typename Member>
ViewProperty member(QString name, PropertyKind kind, QString label, QString doc, double lo, double hi,
                    Member ViewOptions::*m)
{
    ViewProperty p;
    p.name = std::move(name);
    p.kind = kind;
    p.label = std::move(label);
    p.doc = std::move(doc);
    p.minimum = lo;
    p.maximum = hi;
    p.get = [m](const ViewOptions& o) { return QVariant::fromValue(T(o.*m)); };
    p.set = [m](ViewOptions& o, const QVariant& v) { o.*m = Member(v.value<T>()); };
    return p;
}

ViewProperty integer(QString name, QString label, QString doc, double lo, double hi, bool animatable,
                     int ViewOptions::*m)
{
    ViewProperty p = member<int>(std::move(name), PropertyKind::Integer, std::move(label), std::move(doc), lo, hi, m);
    p.animatable = animatable;
    return p;
}

ViewProperty real(QString name, QString label, QString doc, double lo, double hi, bool animatable,
                  double ViewOptions::*m)
{
    ViewProperty p = member<double>(std::move(name), PropertyKind::Real, std::move(label), std::move(doc), lo, hi, m);
    p.animatable = animatable;
    return p;
}

ViewProperty boolean(QString name, QString label, QString doc, bool ViewOptions::*m)
{
    return member<bool>(std::move(name), PropertyKind::Bool, std::move(label), std::move(doc), 0, 1, m);
}

ViewProperty text(QString name, QString label, QString doc, int minLength, int maxLength, QString ViewOptions::*m)
{
    return member<QString>(std::move(name), PropertyKind::Text, std::move(label), std::move(doc), minLength, maxLength,
                           m);
}

template <typename Enum>
ViewProperty choice(QString name, QString label, QString doc, QStringList words, Enum ViewOptions::*m)
{
    ViewProperty p = member<int>(std::move(name), PropertyKind::Choice, std::move(label), std::move(doc), 0,
                                 double(words.size() - 1), m);
    p.words = std::move(words);
    return p;
}

ViewProperty attention(ViewProperty p)
{
    p.attentionInput = true;
    return p;
}

/// The table, clock and rotation views' options and the animation speed.
std::vector<ViewProperty> clockAndRotationProperties()
{
    const double maxDistance = double(core::maxPosition);
    return {
        choice("table_quantity", QStringLiteral("table quantity (table view)"),
               QStringLiteral("What the encoding table shows for a rotary scheme"),
               {QStringLiteral("cos"), QStringLiteral("sin"), QStringLiteral("angle")}, &ViewOptions::tableQuantity),
        choice(
            "colormap", QStringLiteral("colour map"),
            QStringLiteral("Colour map of the heatmaps (auto: diverging "
                           "for signed data, else viridis)"),
            {QStringLiteral("auto"), QStringLiteral("viridis"), QStringLiteral("cividis"), QStringLiteral("diverging")},
            &ViewOptions::colorMap),
        boolean("pendulum", QStringLiteral("pendulums (clock view)"),
                QStringLiteral("Draw each pair as a pendulum instead of a clock hand"), &ViewOptions::pendulum),
        text("clock_pairs", QStringLiteral("pairs (clock view)"),
             QStringLiteral("Which pairs the clock view shows: empty for automatic, else e.g. 0-3,8,63"), 0, 200,
             &ViewOptions::clockPairs),
        real("speed", QStringLiteral("animation speed"), QStringLiteral("Animation speed in tokens per second"), 0.1,
             100000.0, false, &ViewOptions::speed),
        integer("key_distance", QStringLiteral("key distance (rotation view)"),
                QStringLiteral("The rotation view's key sits at position m - key_distance"), -maxDistance, maxDistance,
                true, &ViewOptions::keyDistance),
        integer("shift", QStringLiteral("shift (rotation view)"),
                QStringLiteral("The rotation view shifts both positions by this many tokens"), -maxDistance,
                maxDistance, true, &ViewOptions::shift),
    };
}

/// The attention view's options: its inputs to the attention request.
std::vector<ViewProperty> attentionProperties()
{
    return {
        attention(boolean("softmax", QStringLiteral("softmax (attention view)"),
                          QStringLiteral("Show attention probabilities instead of logits"), &ViewOptions::softmax)),
        attention(boolean("causal", QStringLiteral("causal mask (attention view)"),
                          QStringLiteral("Mask keys after the query (decoder attention)"), &ViewOptions::causal)),
        attention(integer("head", QStringLiteral("head (attention view)"),
                          QStringLiteral("Which head the attention view shows"), 0, core::maxHeads - 1, true,
                          &ViewOptions::head)),
        attention(integer("heads", QStringLiteral("heads (attention view)"),
                          QStringLiteral("Number of heads (ALiBi's slopes and other per-head values depend on it)"), 1,
                          core::maxHeads, true, &ViewOptions::heads)),
        attention(choice("content", QStringLiteral("content (attention view)"),
                         QStringLiteral("What the attention view's queries and keys carry besides position"),
                         {QStringLiteral("random"), QStringLiteral("constant"), QStringLiteral("sentence")},
                         &ViewOptions::content)),
        attention(text("sentence", QStringLiteral("sentence (attention view)"),
                       QStringLiteral("The words of the sentence content"), 1, 10000, &ViewOptions::sentence)),
        attention(integer("attention_size", QStringLiteral("attention size"),
                          QStringLiteral("Queries = keys = this many positions in the attention view"), 1,
                          maxAttentionSize, true, &ViewOptions::attentionSize)),
        attention(text("term", QStringLiteral("term (attention view)"),
                       QStringLiteral("One named part of the logits (empty: the whole score)"), 0, 100,
                       &ViewOptions::term)),
    };
}

/// The extension and precision views' options.
std::vector<ViewProperty> extensionAndPrecisionProperties()
{
    const double maxDistance = double(core::maxPosition);
    return {
        integer("extension_pair", QStringLiteral("pair (extension view)"),
                QStringLiteral("The pair whose arcs of angles met in training and at the inference length the circle "
                               "shows; -1: the fastest pair that never completes a turn in training"),
                -1, 4095, true, &ViewOptions::extensionPair),
        choice(
            "extension_methods", QStringLiteral("methods (extension view)"),
            QStringLiteral("Scale curves of every method (PI, NTK-aware, dynamic NTK, YaRN, Llama 3) at the scheme's "
                           "theta, factor and trained window, or of this scheme only"),
            {QStringLiteral("all"), QStringLiteral("scheme")}, &ViewOptions::extensionMethods),
        integer("target_length", QStringLiteral("inference length (extension view)"),
                QStringLiteral("Inference length L of the extension view, also the sequence length of dynamic NTK and "
                               "LongRoPE there; 0: the state's positions"),
                0, maxDistance, true, &ViewOptions::targetLength),
        integer("trained_length", QStringLiteral("trained length (extension and attention views)"),
                QStringLiteral("Trained window T for schemes whose parameters name none (default, linear, ntk, xPos, "
                               "and the bias schemes in the attention view, which marks it); 0: a preset's trained "
                               "length, else L / factor or L in the extension view"),
                0, maxDistance, true, &ViewOptions::trainedLength),
        // precision view
        choice("dtype", QStringLiteral("dtype (precision view)"),
               QStringLiteral("The format whose rounding the precision view emulates (IEEE 754 binary16, bfloat16, "
                              "binary32; round to nearest even)"),
               {QStringLiteral("float32"), QStringLiteral("float16"), QStringLiteral("bfloat16")}, &ViewOptions::dtype),
        choice("angle_pipeline", QStringLiteral("angle pipeline (precision view)"),
               QStringLiteral("round_angle: p * omega in double, rounded once; low_precision: p and omega held in the "
                              "dtype and their product rounded in it"),
               {QStringLiteral("round_angle"), QStringLiteral("low_precision")}, &ViewOptions::anglePipeline),
    };
}

/// The pipeline and lengthlab views' options.
std::vector<ViewProperty> pipelineAndLengthLabProperties()
{
    return {
        choice(
            "pipeline_mode", QStringLiteral("mode (pipeline view)"),
            QStringLiteral("The stages of one attention layer, or the NoPE demonstrations (permutation, causal mask)"),
            {QStringLiteral("stages"), QStringLiteral("nope")}, &ViewOptions::pipelineMode),
        integer("pipeline_pair", QStringLiteral("pair (pipeline view)"),
                QStringLiteral("The rotation pair drawn where the pipeline view compares adding and rotating"), 0,
                double(core::maxPipelinePair), true, &ViewOptions::pipelinePair),
        integer("nope_positions", QStringLiteral("positions (pipeline view, NoPE mode)"),
                QStringLiteral("Positions of the NoPE mode's causal-mask plot (uniform attention, weight 1/(i+1))"), 1,
                4096, true, &ViewOptions::nopePositions),
        // --- lengthlab view
        text(
            "run_file", QStringLiteral("run file (lengthlab view)"),
            QStringLiteral("The run file written by poslab train -o FILE whose accuracy against length the view draws"),
            0, 4096, &ViewOptions::runFile),
        choice("length_metric", QStringLiteral("measure (lengthlab view)"),
               QStringLiteral("exact_match: share of sequences with every answer token right; token_accuracy: share of "
                              "answer tokens right; loss: cross-entropy of the answer tokens"),
               {QStringLiteral("exact_match"), QStringLiteral("token_accuracy"), QStringLiteral("loss")},
               &ViewOptions::lengthMetric),
    };
}

/// The attention view's trained source: the lengthlab view's training runs.
std::vector<ViewProperty> trainedAttentionProperties()
{
    return {
        attention(
            choice("attention_source", QStringLiteral("source (attention view)"),
                   QStringLiteral("scheme: the scheme's attention pattern from core's engine; trained: the real "
                                  "attention weights of a model trained in this window (the lengthlab view's Train)"),
                   {QStringLiteral("scheme"), QStringLiteral("trained")}, &ViewOptions::attentionSource)),
        attention(integer("trained_run", QStringLiteral("trained run (attention view)"),
                          QStringLiteral("Which of the window's training runs the trained source shows (0: the first)"),
                          0, 255, false, &ViewOptions::trainedRun)),
        attention(integer("trained_layer", QStringLiteral("trained layer (attention view)"),
                          QStringLiteral("The layer of the trained model whose attention is shown (0: the first; "
                                         "checked against the model's layers)"),
                          0, 7, false, &ViewOptions::trainedLayer)),
        attention(
            integer("trained_test_length", QStringLiteral("test length (attention view, trained)"),
                    QStringLiteral("Task length of the sequence fed to the trained model (an evaluation sequence); "
                                   "0: three times its trained length"),
                    0, 4096, true, &ViewOptions::trainedTestLength)),
    };
}

/// What every view shares: theme, fonts, compare ranges, clean slide.
std::vector<ViewProperty> displayProperties()
{
    return {
        choice("theme", QStringLiteral("theme"), QStringLiteral("Light or dark colours"),
               {QStringLiteral("light"), QStringLiteral("dark")}, &ViewOptions::theme),
        real("font_scale", QStringLiteral("font scale"), QStringLiteral("Multiplies every font of the views"), 0.25,
             8.0, true, &ViewOptions::fontScale),
        boolean("independent_ranges", QStringLiteral("independent ranges (compare)"),
                QStringLiteral("Side by side, A and B each take their own colour range and axes; false: both halves "
                               "share them when they plot the same quantity"),
                &ViewOptions::independentRanges),
        boolean("clean_slide", QStringLiteral("clean slide"),
                QStringLiteral("Leave out the table's aliasing note, hover hints and cursor tags in every view"),
                &ViewOptions::cleanSlide),
    };
}

std::vector<ViewProperty> makeProperties()
{
    std::vector<ViewProperty> all;
    for (auto group : {clockAndRotationProperties, attentionProperties, extensionAndPrecisionProperties,
                       pipelineAndLengthLabProperties, trainedAttentionProperties, displayProperties})
        for (ViewProperty& p : group())
            all.push_back(std::move(p));
    return all;
}

QString number(double v)
{
    return QString::number(v, 'g', 15);
}

QString outOfRange(const ViewProperty& p, const QString& shown)
{
    return QStringLiteral("%1 %2 is out of range; allowed: %3 to %4")
        .arg(p.name, shown, number(p.minimum), number(p.maximum));
}

QString checkRange(const ViewProperty& p, const QVariant& v)
{
    switch (p.kind) {
    case PropertyKind::Integer:
    case PropertyKind::Choice: {
        const int x = v.toInt();
        if (x < p.minimum || x > p.maximum)
            return p.kind == PropertyKind::Choice ? QStringLiteral("%1 %2 is unknown; allowed: %3")
                                                        .arg(p.name)
                                                        .arg(x)
                                                        .arg(p.words.join(QStringLiteral(", ")))
                                                  : outOfRange(p, QString::number(x));
        return {};
    }
    case PropertyKind::Real: {
        const double x = v.toDouble();
        if (!std::isfinite(x) || x < p.minimum || x > p.maximum)
            return outOfRange(p, number(x));
        return {};
    }
    case PropertyKind::Text: {
        const qsizetype n = v.toString().size();
        if (n < p.minimum)
            return QStringLiteral("%1 may not be empty").arg(p.name);
        if (n > p.maximum)
            return QStringLiteral("%1 is %2 characters long; allowed: at most %3")
                .arg(p.name)
                .arg(n)
                .arg(number(p.maximum));
        return {};
    }
    case PropertyKind::Bool: return {};
    }
    return {};
}

} // namespace

const std::vector<ViewProperty>& viewProperties()
{
    static const std::vector<ViewProperty> table = makeProperties();
    return table;
}

const ViewProperty* findViewProperty(const QString& name)
{
    for (const ViewProperty& p : viewProperties())
        if (p.name == name)
            return &p;
    return nullptr;
}

QString viewPropertyNames()
{
    QStringList names;
    for (const ViewProperty& p : viewProperties())
        names << p.name;
    return names.join(QStringLiteral(", "));
}

QString convertProperty(const ViewProperty& p, const QJsonValue& value, QVariant* out)
{
    QVariant v;
    const auto kindName = [&] {
        switch (p.kind) {
        case PropertyKind::Integer: return QStringLiteral("an integer");
        case PropertyKind::Real: return QStringLiteral("a number");
        case PropertyKind::Bool: return QStringLiteral("true or false");
        case PropertyKind::Choice: return QStringLiteral("one of %1").arg(p.words.join(QStringLiteral(", ")));
        case PropertyKind::Text: return QStringLiteral("a string");
        }
        return QString();
    };
    const QString wrongType = QStringLiteral("%1 must be %2").arg(p.name, kindName());
    switch (p.kind) {
    case PropertyKind::Integer: {
        if (!value.isDouble())
            return wrongType;
        const double x = value.toDouble();
        if (!std::isfinite(x) || x != std::floor(x))
            return wrongType;
        if (x < p.minimum || x > p.maximum)
            return outOfRange(p, number(x));
        v = int(x);
        break;
    }
    case PropertyKind::Real:
        if (!value.isDouble())
            return wrongType;
        v = value.toDouble();
        break;
    case PropertyKind::Bool:
        if (!value.isBool())
            return wrongType;
        v = value.toBool();
        break;
    case PropertyKind::Choice:
        if (value.isString()) {
            const qsizetype i = p.words.indexOf(value.toString());
            if (i < 0)
                return QStringLiteral("%1 '%2' is unknown; allowed: %3")
                    .arg(p.name, value.toString(), p.words.join(QStringLiteral(", ")));
            v = int(i);
        } else if (value.isDouble()) { // version 1 state files wrote the enum's index
            const double x = value.toDouble();
            if (x != std::floor(x) || x < 0 || x > p.maximum)
                return QStringLiteral("%1 %2 is unknown; allowed: %3")
                    .arg(p.name, number(x), p.words.join(QStringLiteral(", ")));
            v = int(x);
        } else {
            return wrongType;
        }
        break;
    case PropertyKind::Text:
        if (!value.isString())
            return wrongType;
        v = value.toString();
        break;
    }
    if (QString problem = checkRange(p, v); !problem.isEmpty())
        return problem;
    *out = v;
    return {};
}

QString parseProperty(const ViewProperty& p, const QString& raw, QVariant* out)
{
    const QString t = p.kind == PropertyKind::Text ? raw : raw.trimmed();
    switch (p.kind) {
    case PropertyKind::Integer:
    case PropertyKind::Real: {
        bool ok = false;
        const double x = QLocale::c().toDouble(t, &ok);
        if (!ok)
            return QStringLiteral("%1 '%2' is not a number").arg(p.name, t);
        return convertProperty(p, QJsonValue(x), out);
    }
    case PropertyKind::Bool:
        if (t == QLatin1String("true") || t == QLatin1String("1") || t == QLatin1String("on"))
            return convertProperty(p, QJsonValue(true), out);
        if (t == QLatin1String("false") || t == QLatin1String("0") || t == QLatin1String("off"))
            return convertProperty(p, QJsonValue(false), out);
        return QStringLiteral("%1 '%2' is not true or false").arg(p.name, t);
    case PropertyKind::Choice:
    case PropertyKind::Text: return convertProperty(p, QJsonValue(t), out);
    }
    return {};
}

QJsonValue propertyJson(const ViewProperty& p, const ViewOptions& options)
{
    const QVariant v = p.get(options);
    switch (p.kind) {
    case PropertyKind::Integer: return v.toInt();
    case PropertyKind::Real: return v.toDouble();
    case PropertyKind::Bool: return v.toBool();
    case PropertyKind::Choice: return p.words.value(v.toInt());
    case PropertyKind::Text: return v.toString();
    }
    return {};
}

QString propertyText(const ViewProperty& p, const ViewOptions& options)
{
    const QJsonValue v = propertyJson(p, options);
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return p.kind == PropertyKind::Integer ? QString::number(v.toInt()) : number(v.toDouble());
    return v.toString();
}

QString checkViewOptions(const ViewOptions& options)
{
    for (const ViewProperty& p : viewProperties())
        if (QString problem = checkRange(p, p.get(options)); !problem.isEmpty())
            return problem;
    if (options.head >= options.heads)
        return QStringLiteral("head %1 is out of range; allowed: 0 to %2 (heads is %3)")
            .arg(options.head)
            .arg(options.heads - 1)
            .arg(options.heads);
    return {};
}

QStringList changedProperties(const ViewOptions& a, const ViewOptions& b)
{
    QStringList names;
    for (const ViewProperty& p : viewProperties())
        if (p.get(a) != p.get(b))
            names << p.name;
    return names;
}

} // namespace poslab::ui
