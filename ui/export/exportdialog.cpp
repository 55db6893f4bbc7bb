// SPDX-License-Identifier: MIT
#include "ui/export/exportdialog.h"

#include "core/encodingregistry.h"
#include "ui/figures/computation.h"
#include "ui/export/exportscene.h"
#include "ui/views/tableview.h"
#include "ui/views/view.h"
#include "ui/state/workbenchstate.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace poslab::exporting {

namespace {

constexpr QSize previewBox(440, 300);

struct Preset {
    const char* name;
    double w, h;
    SizeUnit unit;
    int dpi;
    double fontScale;
};
// Sizes lecturers and authors ask for. Views already grow their text with the figure (sizeScale, up to 3x),
// so a full slide keeps font scale 1: more clips the rotation view's footer at 1920 px.
constexpr Preset presets[] = {
    {"Custom", 0, 0, SizeUnit::Pixels, 0, 0},
    {"Slide 16:9 (1920 x 1080 px)", 1920, 1080, SizeUnit::Pixels, 96, 1.0},
    {"Half slide (960 x 1080 px)", 960, 1080, SizeUnit::Pixels, 96, 1.25},
    {"Paper column (8.5 x 6 cm, 300 DPI)", 8.5, 6, SizeUnit::Centimetres, 300, 0.8},
    {"Paper text width (17 x 9 cm, 300 DPI)", 17, 9, SizeUnit::Centimetres, 300, 1.0},
    {"Screen (1200 x 800 px)", 1200, 800, SizeUnit::Pixels, 96, 1.0},
};

/// A number field that shows what a person would type: 10000 and 0.02, not 10000.000 and 0.020.
class TypedSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QString textFromValue(double v) const override
    {
        QString t = QDoubleSpinBox::textFromValue(v);
        const QString point = locale().decimalPoint();
        if (t.contains(point)) {
            while (t.endsWith(QLatin1Char('0')))
                t.chop(1);
            if (t.endsWith(point))
                t.chop(point.size());
        }
        return t;
    }
};

double inchesPer(SizeUnit u)
{
    switch (u) {
    case SizeUnit::Pixels: return 0;
    case SizeUnit::Centimetres: return 1 / 2.54;
    case SizeUnit::Millimetres: return 1 / 25.4;
    case SizeUnit::Inches: return 1;
    }
    return 0;
}

} // namespace

ExportDialog::ExportDialog(ui::WorkbenchState* state, ui::Computation* computation, ui::View* focused,
                           std::vector<ui::View*> all, QWidget* parent)
    : QDialog(parent)
    , m_state(state)
    , m_computation(computation)
    , m_focused(focused ? focused : (all.empty() ? nullptr : all.front()))
    , m_views(std::move(all))
{
    setWindowTitle(tr("Export figure"));
    setObjectName(QStringLiteral("exportDialog"));
    if (m_views.empty() && m_focused)
        m_views.push_back(m_focused);

    auto* form = new QFormLayout;
    addViewRows(form);
    addSizeRows(form);
    addAnimationRows(form);
    QToolButton* browseButton = addFileRow(form);
    layOut(form);

    m_previewTimer = new QTimer(this);
    m_previewTimer->setSingleShot(true);
    m_previewTimer->setInterval(120);
    connect(m_previewTimer, &QTimer::timeout, this, &ExportDialog::updatePreview);

    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::formatChanged);
    connect(m_unit, &QComboBox::currentIndexChanged, this, &ExportDialog::unitChanged);
    connect(m_preset, &QComboBox::currentIndexChanged, this, &ExportDialog::applyPreset);
    connect(m_what, &QComboBox::currentIndexChanged, this, [this] {
        populateAnimation();
        schedulePreview();
    });
    connect(m_animate, &QComboBox::currentIndexChanged, this, &ExportDialog::animationTargetChanged);
    for (QDoubleSpinBox* s : {m_width, m_height, m_fontScale})
        connect(s, &QDoubleSpinBox::valueChanged, this, &ExportDialog::schedulePreview);
    connect(m_dpi, &QSpinBox::valueChanged, this, &ExportDialog::schedulePreview);
    connect(m_theme, &QComboBox::currentIndexChanged, this, &ExportDialog::schedulePreview);
    connect(browseButton, &QToolButton::clicked, this, &ExportDialog::browse);
    connect(m_path, &QLineEdit::editingFinished, this, [this] {
        if (auto f = formatForPath(m_path->text())) {
            QSignalBlocker b(m_format);
            m_format->setCurrentIndex(m_format->findData(int(*f)));
            formatChanged();
        }
    });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QStringList problems = exportNow();
        if (problems.isEmpty()) {
            accept();
            return;
        }
        QMessageBox::warning(this, tr("Export"), problems.join(QLatin1Char('\n')));
    });
    m_animationBox->setVisible(false);
    m_animate->setCurrentIndex(0);
    m_from->setValue(0);
    m_to->setValue(std::min(31, std::max(0, m_state->positionCount() - 1)));
    updatePreview();
}

void ExportDialog::addViewRows(QFormLayout* form)
{
    m_what = new QComboBox(this);
    m_what->setObjectName(QStringLiteral("exportWhat"));
    for (ui::View* v : m_views)
        m_what->addItem(v == m_focused ? tr("%1 (focused)").arg(v->title()) : v->title(), v->exportName());
    m_what->addItem(tr("All views (one file each)"), QStringLiteral("*"));
    m_what->setCurrentIndex(std::max(0, int(std::find(m_views.begin(), m_views.end(), m_focused) - m_views.begin())));
    form->addRow(tr("View"), m_what);

    m_format = new QComboBox(this);
    m_format->setObjectName(QStringLiteral("exportFormat"));
    m_format->addItem(tr("SVG (vector, for slides and the web)"), int(Format::Svg));
    m_format->addItem(tr("PDF (vector, for LaTeX)"), int(Format::Pdf));
    m_format->addItem(tr("PNG (image)"), int(Format::Png));
    m_format->addItem(tr("GIF (animation)"), int(Format::Gif));
    m_format->addItem(tr("CSV (the numbers)"), int(Format::Csv));
    m_format->addItem(tr("JSON (the numbers)"), int(Format::Json));
    m_format->addItem(tr("NPY (the numbers, NumPy)"), int(Format::Npy));
    form->addRow(tr("Format"), m_format);

    m_preset = new QComboBox(this);
    for (const Preset& p : presets)
        m_preset->addItem(tr(p.name));
    form->addRow(tr("Preset"), m_preset);
}

void ExportDialog::addSizeRows(QFormLayout* form)
{
    auto* sizeRow = new QHBoxLayout;
    m_width = new TypedSpinBox(this);
    m_height = new TypedSpinBox(this);
    for (QDoubleSpinBox* s : {m_width, m_height}) {
        s->setRange(0.1, maxPixelsPerSide);
        s->setDecimals(1);
        s->setKeyboardTracking(false);
    }
    m_width->setObjectName(QStringLiteral("exportWidth"));
    m_height->setObjectName(QStringLiteral("exportHeight"));
    m_width->setValue(1200);
    m_height->setValue(800);
    m_unit = new QComboBox(this);
    m_unit->addItem(tr("px"), int(SizeUnit::Pixels));
    m_unit->addItem(tr("cm"), int(SizeUnit::Centimetres));
    m_unit->addItem(tr("mm"), int(SizeUnit::Millimetres));
    m_unit->addItem(tr("in"), int(SizeUnit::Inches));
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(QStringLiteral("\u00d7"), this));
    sizeRow->addWidget(m_height);
    sizeRow->addWidget(m_unit);
    form->addRow(tr("Size"), sizeRow);

    m_dpi = new QSpinBox(this);
    m_dpi->setRange(10, 2400);
    m_dpi->setValue(96);
    m_dpi->setSuffix(tr(" DPI"));
    m_dpi->setKeyboardTracking(false);
    m_dpi->setToolTip(tr("Pixels per inch: sets the physical size of a pixel size, and the pixels of a physical size. "
                         "Text keeps its point size."));
    form->addRow(tr("Resolution"), m_dpi);

    m_theme = new QComboBox(this);
    m_theme->setObjectName(QStringLiteral("exportTheme"));
    m_theme->addItem(tr("Light"), 0);
    m_theme->addItem(tr("Dark (projectors)"), 1);
    m_theme->addItem(tr("Transparent, dark text (light slides)"), 2);
    m_theme->addItem(tr("Transparent, light text (dark slides)"), 3);
    m_theme->setCurrentIndex(m_state->viewOptions().theme == ui::ThemeKind::Dark ? 1 : 0);
    form->addRow(tr("Theme"), m_theme);

    m_fontScale = new TypedSpinBox(this);
    m_fontScale->setRange(0.5, 4.0);
    m_fontScale->setSingleStep(0.25);
    m_fontScale->setValue(m_state->viewOptions().fontScale);
    m_fontScale->setPrefix(QStringLiteral("\u00d7 "));
    m_fontScale->setKeyboardTracking(false);
    form->addRow(tr("Font scale"), m_fontScale);
}

void ExportDialog::addAnimationRows(QFormLayout* form)
{
    // Animation settings, shown for GIF.
    m_animationBox = new QWidget(this);
    auto* anim = new QFormLayout(m_animationBox);
    anim->setContentsMargins(0, 0, 0, 0);
    m_animate = new QComboBox(m_animationBox);
    m_from = new TypedSpinBox(m_animationBox);
    m_to = new TypedSpinBox(m_animationBox);
    for (QDoubleSpinBox* s : {m_from, m_to}) {
        s->setRange(-1e12, 1e12);
        s->setDecimals(3);
        s->setKeyboardTracking(false);
    }
    auto* range = new QHBoxLayout;
    range->addWidget(m_from);
    range->addWidget(new QLabel(tr("to"), m_animationBox));
    range->addWidget(m_to);
    m_frames = new QSpinBox(m_animationBox);
    m_frames->setRange(1, maxFrames);
    m_frames->setValue(32);
    m_fps = new TypedSpinBox(m_animationBox);
    m_fps->setRange(0.5, 50);
    m_fps->setValue(12);
    m_loop = new QSpinBox(m_animationBox);
    m_loop->setRange(0, 65535);
    m_loop->setSpecialValueText(tr("forever"));
    auto* timing = new QHBoxLayout;
    timing->addWidget(m_frames);
    timing->addWidget(new QLabel(tr("frames at"), m_animationBox));
    timing->addWidget(m_fps);
    timing->addWidget(new QLabel(tr("fps, loop"), m_animationBox));
    timing->addWidget(m_loop);
    anim->addRow(tr("Animate"), m_animate);
    anim->addRow(tr("From"), range);
    anim->addRow(tr("Frames"), timing);
    form->addRow(m_animationBox);
    populateAnimation();
}

QToolButton* ExportDialog::addFileRow(QFormLayout* form)
{
    auto* pathRow = new QHBoxLayout;
    m_path = new QLineEdit(this);
    m_path->setObjectName(QStringLiteral("exportPath"));
    m_path->setText(
        QDir(startFolder())
            .filePath(
                QStringLiteral("poslab-%1.svg").arg(m_focused ? m_focused->exportName() : QStringLiteral("figure"))));
    auto* browseButton = new QToolButton(this);
    browseButton->setText(tr("Browse\u2026"));
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browseButton);
    form->addRow(tr("File"), pathRow);
    return browseButton;
}

void ExportDialog::layOut(QFormLayout* form)
{
    m_preview = new QLabel(this);
    m_preview->setObjectName(QStringLiteral("exportPreview"));
    m_preview->setMinimumSize(previewBox);
    m_preview->setAlignment(Qt::AlignCenter);
    m_preview->setFrameShape(QFrame::StyledPanel);
    m_info = new QLabel(this);
    m_info->setWordWrap(true);
    auto* right = new QVBoxLayout;
    right->addWidget(m_preview, 1);
    right->addWidget(m_info);

    auto* buttons = new QDialogButtonBox(this);
    m_export = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    auto* copy = buttons->addButton(tr("Copy to clipboard"), QDialogButtonBox::ActionRole);
    buttons->addButton(QDialogButtonBox::Close);

    auto* columns = new QHBoxLayout;
    columns->addLayout(form);
    columns->addLayout(right, 1);
    auto* top = new QVBoxLayout(this);
    top->addLayout(columns, 1);
    top->addWidget(buttons);
    connect(copy, &QPushButton::clicked, this, &ExportDialog::copyToClipboard);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void ExportDialog::applyPreset(int i)
{
    const Preset& p = presets[i];
    if (!p.dpi)
        return;
    QSignalBlocker b(m_unit);
    m_unit->setCurrentIndex(m_unit->findData(int(p.unit)));
    m_lastUnit = p.unit;
    m_dpi->setValue(p.dpi);
    m_width->setValue(p.w);
    m_height->setValue(p.h);
    m_fontScale->setValue(p.fontScale);
    schedulePreview();
}

void ExportDialog::animationTargetChanged()
{
    // Sensible ends: positions 0..31, a parameter from its value to twice (or half) of it.
    const QString what = m_animate->currentData().toString();
    if (what == QLatin1String("position")) {
        m_from->setValue(0);
        m_to->setValue(std::min(31, std::max(0, m_state->positionCount() - 1)));
    } else if (m_state->params().has(what.toStdString())) {
        const double v = m_state->params().value(what.toStdString()).number;
        m_from->setValue(v);
        m_to->setValue(v == 0 ? 1 : v * 4);
    } else if (const ui::ViewProperty* p = ui::findViewProperty(what)) {
        // From the value now to a sensible other end inside the property's range.
        const double v = p->get(m_state->viewOptions()).toDouble();
        m_from->setValue(v);
        double to = v == 0 ? 8 : v * 2;
        if (what == QLatin1String("head"))
            to = m_state->viewOptions().heads - 1;
        m_to->setValue(std::clamp(to, p->minimum, p->maximum));
    } else if (what == QLatin1String("dim") || what == QLatin1String("positions")) {
        const double v = what == QLatin1String("dim") ? m_state->dim() : m_state->positionCount();
        m_from->setValue(v);
        m_to->setValue(v * 2);
    }
}

ExportDialog::~ExportDialog() = default;

QString ExportDialog::startFolder()
{
    // A folder that exists, so the first export on a fresh machine does not fail for want of ~/Pictures.
    const QString last = QSettings().value(lastFolderKey).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir())
        return last;
    const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    if (!pictures.isEmpty() && QFileInfo(pictures).isDir())
        return pictures;
    return QDir::homePath();
}

void ExportDialog::run(QWidget* parent, ui::WorkbenchState* state, ui::Computation* computation, ui::View* focused,
                       const std::vector<ui::View*>& all)
{
    ExportDialog dialog(state, computation, focused, all, parent);
    dialog.exec();
}

ExportOptions ExportDialog::options() const
{
    ExportOptions o;
    o.format = Format(m_format->currentData().toInt());
    o.size = QSizeF(m_width->value(), m_height->value());
    o.unit = SizeUnit(m_unit->currentData().toInt());
    o.dpi = m_dpi->value();
    const int theme = m_theme->currentData().toInt();
    o.theme = theme == 1 || theme == 3 ? ui::ThemeKind::Dark : ui::ThemeKind::Light;
    o.transparent = theme >= 2;
    o.fontScale = m_fontScale->value();
    o.animation.what = m_animate->currentData().toString();
    o.animation.from = m_from->value();
    o.animation.to = m_to->value();
    o.animation.frames = m_frames->value();
    o.animation.gif.framesPerSecond = m_fps->value();
    o.animation.gif.loopCount = m_loop->value();
    return o;
}

void ExportDialog::setPath(const QString& path)
{
    m_path->setText(path);
    if (auto f = formatForPath(path)) {
        m_format->setCurrentIndex(m_format->findData(int(*f)));
        formatChanged();
    }
}

void ExportDialog::setAllViews(bool all)
{
    if (all)
        m_what->setCurrentIndex(m_what->count() - 1);
    else
        m_what->setCurrentIndex(
            std::max(0, int(std::find(m_views.begin(), m_views.end(), m_focused) - m_views.begin())));
}

ui::View* ExportDialog::currentView() const
{
    const QString name = m_what->currentData().toString();
    for (ui::View* v : m_views)
        if (v->exportName() == name)
            return v;
    return m_focused;
}

void ExportDialog::populateAnimation()
{
    const QString keep = m_animate->currentData().toString();
    QSignalBlocker b(m_animate);
    m_animate->clear();
    m_animate->addItem(tr("position cursor"), QStringLiteral("position"));
    // Only keys in force: the sweep goes through the set-up resolver, which refuses one that does not apply.
    for (const auto& p : m_state->scheme().params)
        if ((p.type == core::ParamType::Real || p.type == core::ParamType::Integer)
            && core::applies(p, m_state->params()))
            m_animate->addItem(tr("parameter %1").arg(QString::fromStdString(p.key)), QString::fromStdString(p.key));
    m_animate->addItem(tr("dimension"), QStringLiteral("dim"));
    m_animate->addItem(tr("positions"), QStringLiteral("positions"));
    // The view options a sweep can animate: the state's property table (the same list as --animate).
    for (const ui::ViewProperty& p : ui::viewProperties())
        if (p.animatable)
            m_animate->addItem(p.label, p.name);
    const int i = m_animate->findData(keep);
    m_animate->setCurrentIndex(std::max(0, i));
}

void ExportDialog::formatChanged()
{
    const Format f = Format(m_format->currentData().toInt());
    m_animationBox->setVisible(f == Format::Gif);
    const bool figure = isFigure(f);
    for (QWidget* w : std::initializer_list<QWidget*>{m_width, m_height, m_unit, m_dpi, m_theme, m_fontScale, m_preset})
        w->setEnabled(figure);
    // Keep the file name in step with the format.
    QFileInfo info(m_path->text());
    if (!m_path->text().isEmpty() && info.suffix().toLower() != extension(f))
        m_path->setText(QDir(info.path()).filePath(info.completeBaseName() + QLatin1Char('.') + extension(f)));
    schedulePreview();
}

void ExportDialog::unitChanged()
{
    const SizeUnit to = SizeUnit(m_unit->currentData().toInt());
    const double dpi = m_dpi->value();
    // Convert through inches so the figure keeps its size.
    auto toInches = [&](double v, SizeUnit u) { return u == SizeUnit::Pixels ? v / dpi : v * inchesPer(u); };
    auto fromInches = [&](double in, SizeUnit u) { return u == SizeUnit::Pixels ? in * dpi : in / inchesPer(u); };
    const double w = fromInches(toInches(m_width->value(), m_lastUnit), to);
    const double h = fromInches(toInches(m_height->value(), m_lastUnit), to);
    m_lastUnit = to;
    m_width->setDecimals(to == SizeUnit::Pixels ? 0 : 2);
    m_height->setDecimals(to == SizeUnit::Pixels ? 0 : 2);
    m_width->setValue(w);
    m_height->setValue(h);
    schedulePreview();
}

void ExportDialog::resizeEvent(QResizeEvent* event)
{
    QDialog::resizeEvent(event);
    schedulePreview();
}

void ExportDialog::schedulePreview()
{
    m_previewTimer->start();
}

ExportDialog::Target ExportDialog::targetFor(ui::View* live, const ExportOptions& o, bool mutating)
{
    const ui::ViewOptions& now = m_state->viewOptions();
    if (!mutating && now.theme == o.theme && std::abs(now.fontScale - o.fontScale) < 1e-9)
        return {live, m_state, m_computation}; // the window's view as the user sees it (zoom, pinned curves)
    // A private copy of the state with the figure's look; the window keeps its own.
    m_scene = std::make_unique<ExportScene>();
    m_scene->loadState(m_state->toJson());
    applyLook(m_scene->state(), o);
    ui::View* v = m_scene->view(live->exportName());
    if (!v)
        return {};
    if (auto* t = qobject_cast<ui::TableView*>(live))
        if (auto* copy = qobject_cast<ui::TableView*>(v))
            copy->setWindow(t->window());
    return {v, &m_scene->state(), &m_scene->computation()};
}

QString ExportDialog::pathFor(ui::View* view, bool many) const
{
    const QString path = m_path->text().trimmed();
    if (!many)
        return path;
    const QFileInfo info(path);
    return QDir(info.path())
        .filePath(QStringLiteral("%1-%2.%3").arg(info.completeBaseName(), view->exportName(), info.suffix()));
}

void ExportDialog::updatePreview()
{
    m_previewTimer->stop();
    ExportOptions o = options();
    QString why;
    const FigureGeometry g = geometryFor(o, &why);
    ui::View* live = currentView();
    if (!live)
        return;
    if (!why.isEmpty()) {
        m_info->setText(QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(why.toHtmlEscaped()));
        m_export->setEnabled(false);
        return;
    }
    m_export->setEnabled(true);
    if (!isFigure(o.format)) {
        m_preview->setPixmap({});
        m_preview->setText(
            tr("The numbers behind the %1 view as %2.").arg(live->exportName(), extension(o.format).toUpper()));
        m_info->clear();
        return;
    }
    // Same logical layout as the file, fewer pixels: scale the DPI with the preview.
    // As large as the preview area allows (at least previewBox), never larger than the file itself.
    const QSize box = (m_preview->contentsRect().size() - QSize(12, 12)).expandedTo(previewBox);
    const double scale
        = std::min({double(box.width()) / g.pixels.width(), double(box.height()) / g.pixels.height(), 1.0})
        * devicePixelRatioF();
    ExportOptions p = o;
    p.format = Format::Png;
    p.unit = SizeUnit::Pixels;
    p.size = QSizeF(std::max(16.0, g.pixels.width() * scale), std::max(16.0, g.pixels.height() * scale));
    p.dpi = o.dpi * scale;
    const Target t = targetFor(live, o, false);
    if (!t.view)
        return;
    settle(*t.computation);
    const QString nothing = ExportService::whyNothingToShow(*t.view, *t.state, *t.computation);
    QImage img = ExportService::renderImage(*t.view, *t.state, p, &why);
    if (o.transparent && !img.isNull()) {
        // A checkerboard behind a transparent figure, as image editors show it.
        QImage board(img.size(), QImage::Format_RGB32);
        QPainter bp(&board);
        for (int y = 0; y < board.height(); y += 8)
            for (int x = 0; x < board.width(); x += 8)
                bp.fillRect(x, y, 8, 8, ((x + y) / 8) % 2 ? QColor(0xcc, 0xcc, 0xcc) : QColor(0xff, 0xff, 0xff));
        bp.drawImage(0, 0, img);
        bp.end();
        img = board;
    }
    img.setDevicePixelRatio(devicePixelRatioF());
    m_previewImage = img;
    m_preview->setPixmap(QPixmap::fromImage(img));
    QString info = tr("%1 \u00d7 %2 px \u00b7 %3 \u00d7 %4 cm at %5 DPI")
                       .arg(g.pixels.width())
                       .arg(g.pixels.height())
                       .arg(g.millimetres.width() / 10, 0, 'f', 1)
                       .arg(g.millimetres.height() / 10, 0, 'f', 1)
                       .arg(o.dpi);
    if (o.format == Format::Gif)
        info += tr(" \u00b7 %1 frames, %2 s")
                    .arg(o.animation.frames)
                    .arg(o.animation.frames / o.animation.gif.framesPerSecond, 0, 'f', 1);
    if (!nothing.isEmpty())
        info += QStringLiteral("<br><span style='color:#c0392b'>%1</span>").arg(nothing.toHtmlEscaped());
    m_info->setText(info);
}

QStringList ExportDialog::exportNow()
{
    const ExportOptions o = options();
    const bool many = m_what->currentData().toString() == QLatin1String("*");
    std::vector<ui::View*> targets;
    if (many)
        targets = m_views;
    else if (ui::View* v = currentView())
        targets.push_back(v);
    QStringList problems;
    int written = 0;
    for (ui::View* live : targets) {
        const QString path = pathFor(live, many);
        const Target t = targetFor(live, o, o.format == Format::Gif);
        if (!t.view)
            continue;
        if (many && !live->isApplicable())
            continue; // "all views" skips the views that have nothing to show for this scheme
        // ... and a spatial view whose set-up is of the other kind or refused (the mixed sequence view beside a
        // grid scheme): alone, its export is refused with that message.
        if (many && !live->ownScheme().first.isEmpty() && !live->computeError().isEmpty() && !live->computeRefused())
            continue;
        const ExportResult r = ExportService::exportView(*t.view, *t.state, *t.computation, o, path);
        if (!r.ok())
            problems << (many ? QStringLiteral("%1: %2").arg(live->exportName(), r.message) : r.message);
        else
            ++written;
    }
    if (many && written == 0 && problems.isEmpty())
        problems << tr("no view has anything to show for this scheme");
    if (written > 0) // the next export starts where this one went
        QSettings().setValue(lastFolderKey, QFileInfo(pathFor(targets.front(), many)).absolutePath());
    return problems;
}

void ExportDialog::copyToClipboard()
{
    ui::View* live = currentView();
    if (!live)
        return;
    ExportOptions o = options();
    QString why;
    geometryFor(o, &why);
    if (!why.isEmpty()) {
        QMessageBox::warning(this, tr("Copy to clipboard"), why);
        return;
    }
    const Target t = targetFor(live, o, false);
    if (!t.view)
        return;
    settle(*t.computation);
    ExportService::copyToClipboard(*t.view, *t.state, o);
    m_info->setText(m_info->text() + tr("<br>Copied to the clipboard."));
}

void ExportDialog::browse()
{
    const Format f = Format(m_format->currentData().toInt());
    const QString filter = tr("%1 files (*.%2)").arg(extension(f).toUpper(), extension(f));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export figure"), m_path->text(), filter);
    if (!path.isEmpty())
        setPath(path);
}

} // namespace poslab::exporting
