package io.mpilens.plugin.views;

import io.mpilens.plugin.model.CreationSite;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jdt.core.IJavaElement;
import org.eclipse.jdt.core.IType;
import org.eclipse.jdt.core.search.IJavaSearchConstants;
import org.eclipse.jdt.core.search.SearchEngine;
import org.eclipse.jdt.core.search.SearchMatch;
import org.eclipse.jdt.core.search.SearchParticipant;
import org.eclipse.jdt.core.search.SearchPattern;
import org.eclipse.jdt.core.search.SearchRequestor;
import org.eclipse.jdt.ui.JavaUI;
import org.eclipse.jface.text.BadLocationException;
import org.eclipse.jface.text.IDocument;
import org.eclipse.jface.text.IRegion;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.texteditor.ITextEditor;

/**
 * "Open creation site": finds the creating frame's type with JDT's search (in a Job, the index
 * may be building) and opens its line in the Java editor. A type the workspace does not have
 * is reported, not thrown.
 */
final class CreationSiteOpener {
    private CreationSiteOpener() {
    }

    /** Opens {@code site}; {@code report} gets one line for the status line (on the UI thread), null on success. */
    static void open(Display display, CreationSite site, Consumer<String> report) {
        Job job = Job.create("Searching for " + site.type(), monitor -> {
            IType type = find(site.type(), monitor);
            display.asyncExec(() -> report.accept(type == null
                    ? "Cannot open " + site.frame() + ": type " + site.type()
                            + " is not in the workspace. Import or open the project that contains it, then try again."
                    : openAt(type, site)));
        });
        job.setSystem(true);
        job.schedule();
    }

    private static IType find(String qualifiedName, org.eclipse.core.runtime.IProgressMonitor monitor) throws CoreException {
        SearchPattern pattern = SearchPattern.createPattern(qualifiedName, IJavaSearchConstants.TYPE,
                IJavaSearchConstants.DECLARATIONS, SearchPattern.R_EXACT_MATCH | SearchPattern.R_CASE_SENSITIVE);
        List<IType> found = new ArrayList<>();
        new SearchEngine().search(pattern, new SearchParticipant[] {SearchEngine.getDefaultSearchParticipant()},
                SearchEngine.createWorkspaceScope(), new SearchRequestor() {
                    @Override
                    public void acceptSearchMatch(SearchMatch match) {
                        if (match.getElement() instanceof IType t) found.add(t);
                    }
                }, monitor);
        // a source type beats the same type in a jar on some project's class path
        for (IType t : found) {
            if (t.getAncestor(IJavaElement.COMPILATION_UNIT) != null) return t;
        }
        return found.isEmpty() ? null : found.get(0);
    }

    private static String openAt(IType type, CreationSite site) {
        try {
            IEditorPart editor = JavaUI.openInEditor(type, true, false);
            if (!(editor instanceof ITextEditor text)) return null;
            IDocument doc = text.getDocumentProvider().getDocument(text.getEditorInput());
            if (doc == null) return "Opened " + site.type() + ", but it has no source: attach the source to go to line " + site.line() + ".";
            IRegion line = doc.getLineInformation(site.line() - 1);
            text.selectAndReveal(line.getOffset(), line.getLength());
            return null;
        } catch (BadLocationException e) {
            return "Opened " + site.type() + ", but it has no line " + site.line() + ": the source differs from the running code.";
        } catch (CoreException e) {
            return "Cannot open " + site.type() + ": " + e.getMessage();
        }
    }
}
